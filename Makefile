# Tributary — build, run, test.
#   make run    ingest the bundled sample into a local Delta table (no AWS)
#   make test   everything: vet, unit + conformance + end-to-end tests, template lint, CDK construct
#   make bench  benchmarks (JSON→Delta throughput and friends)
#   make loadtest  100,000 files through discovery and commit on moto (slow; not in `make test`)
#   make localstack  the AWS tests and a template deploy on LocalStack in host mode (no Docker)

GO       ?= go
GOFLAGS  ?= -trimpath
OUT      ?= out
FUNCTIONS := discovery backfill commit maintenance
LDFLAGS  := -s -w -buildid=

.PHONY: loadtest all build run test unit vet lint-template bench bench-arm64 bench-init lambdas deploy clean pyenv cdk-test cdk-synth cdk-deploy build-DiscoveryFunction build-BackfillFunction build-CommitFunction build-MaintenanceFunction localstack

all: build

build:
	$(GO) build ./...

bin/tributary: $(shell find . -name '*.go' -not -path './.cache/*' -not -path './cdk/*') go.mod go.sum
	$(GO) build $(GOFLAGS) -o $@ ./cmd/tributary

# The embedded default: examples/sample/input -> $(OUT)/sample_table.
run: bin/tributary
	./bin/tributary run \
	  --source examples/sample/input \
	  --table $(OUT)/sample_table \
	  --checkpoint $(OUT)/sample_checkpoint \
	  --option cloudFiles.format=json \
	  --option cloudFiles.inferColumnTypes=true
	./bin/tributary describe $(OUT)/sample_table

pyenv:
	./scripts/pyenv.sh >/dev/null

# 100,000 small files through the discovery and commit handlers on moto:
# files/s of each, exactly-once and the state table's key spread checked
# (tests/loadtest). LOADTEST_FLAGS, e.g. -files 10000, adjusts it.
LOADTEST_FLAGS ?=
loadtest: pyenv
	$(GO) run ./tests/loadtest $(LOADTEST_FLAGS)

vet:
	$(GO) vet ./...

unit: pyenv
	$(GO) test -count=1 -timeout 45m ./...

lint-template: pyenv
	./scripts/lint-template.sh

test: vet unit lint-template cdk-test cdk-synth

# The CDK construct library lives in its own Go module (cdk/) so that the
# main module does not depend on aws-cdk-go. Its test synthesises a stack of
# four streams once (one jsii process) and checks it against template.yaml
# and with cfn-lint; it needs the Lambda zips (dist/*.zip) as assets.
CDK_ENV = JSII_RUNTIME_PACKAGE_CACHE_ROOT=$$(GO=$(GO) ./scripts/cdk-env.sh) JSII_SILENCE_WARNING_UNTESTED_NODE_VERSION=1

cdk-test: pyenv lambdas
	$(CDK_ENV) sh -c 'cd cdk && $(GO) vet ./... && $(GO) test -count=1 -timeout 20m ./...'

# `cdk synth` (the pinned CDK CLI) of the example app (two streams in one
# stack) into cdk/cdk.out, then cfn-lint on what it wrote.
CDK_CLI = CDK_DISABLE_VERSION_CHECK=1 $$(GO=$(GO) ./scripts/cdk-env.sh --cli)
cdk-synth: pyenv lambdas
	$(CDK_ENV) sh -c 'cd cdk && TRIBUTARY_DIST=../dist '"$(CDK_CLI)"' synth --no-notices --quiet --app "$(GO) run ./example" --output cdk.out'
	AWS_DEFAULT_REGION=us-east-1 $$(./scripts/pyenv.sh)/cfn-lint --include-checks I -- cdk/cdk.out/TributaryExample.template.json

cdk-deploy: cdk-synth
	$(CDK_CLI) deploy --app cdk/cdk.out --all

# Writes $(OUT)/bench.txt; about 3 minutes on 2 cores (first run also
# generates the ~100 MB input under .cache/bench).
bench:
	GO=$(GO) ./scripts/bench-run.sh $(OUT)/bench.txt

# The end-to-end benchmark on linux/arm64 (the functions' architecture)
# under qemu-user, next to amd64: emulated, so a floor, not a Lambda figure;
# with the modelled compute cost per million 1 MiB files (out/bench-arm64.txt).
bench-arm64:
	GO=$(GO) ./scripts/bench-arm64.sh

# Cold-start init of each Lambda bootstrap (exec to its first Runtime API
# poll against a stub), amd64 native and arm64 under qemu-user.
bench-init:
	GO=$(GO) ./scripts/bench-init.sh

# LocalStack 4.14 in host mode (Python 3.13 venv, DynamoDB Local from npm; see
# localstack/README.md): starts it on a free 127.0.0.1 port, runs
# scripts/localstack-suite.sh against it, stops it. Not part of `make test`:
# it takes several minutes and adds nothing moto does not already check,
# except what it says in localstack/README.md.
localstack: pyenv
	./scripts/localstack.sh ./scripts/localstack-suite.sh

# Lambda bundles: dist/<fn>/bootstrap, linux/arm64, reproducible (-trimpath,
# no build id, no VCS stamp), and dist/<fn>.zip, byte-identical under any
# umask: bootstrap is mode 0755 and dated 1980-01-01 in the zip, no extra fields.
lambdas: $(addprefix dist/,$(addsuffix /bootstrap,$(FUNCTIONS)))

dist/%/bootstrap: $(shell find . -name '*.go' -not -path './.cache/*' -not -path './.aws-sam/*' -not -path './cdk/*') go.mod go.sum
	mkdir -p $(dir $@)
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build $(GOFLAGS) -buildvcs=false -tags lambda.norpc -ldflags '$(LDFLAGS)' -o $@ ./functions/$*
	chmod 0755 $@
	cd $(dir $@) && rm -f ../$*.zip && touch -t 198001010000 bootstrap && zip -X -q ../$*.zip bootstrap

# `sam build` (BuildMethod: makefile, build in source: see samconfig.toml)
# calls build-<LogicalId> with ARTIFACTS_DIR set: the artifact is the
# bootstrap `make lambdas` builds, copied with its mode and date.
build-DiscoveryFunction: dist/discovery/bootstrap
	cp -p dist/discovery/bootstrap $(ARTIFACTS_DIR)/bootstrap
build-BackfillFunction: dist/backfill/bootstrap
	cp -p dist/backfill/bootstrap $(ARTIFACTS_DIR)/bootstrap
build-CommitFunction: dist/commit/bootstrap
	cp -p dist/commit/bootstrap $(ARTIFACTS_DIR)/bootstrap
build-MaintenanceFunction: dist/maintenance/bootstrap
	cp -p dist/maintenance/bootstrap $(ARTIFACTS_DIR)/bootstrap

deploy: lint-template
	sam build
	sam deploy --guided

clean:
	rm -rf bin dist .aws-sam cdk/cdk.out $(OUT)
