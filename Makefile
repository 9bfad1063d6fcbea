# Tributary — build, run, test.
#   make run    ingest the bundled sample into a local Delta table (no AWS)
#   make test   everything: vet, unit + conformance + end-to-end tests, template lint
#   make bench  benchmarks (JSON→Delta throughput and friends)

GO       ?= go
GOFLAGS  ?= -trimpath
OUT      ?= out
FUNCTIONS := discovery backfill commit
LDFLAGS  := -s -w -buildid=

.PHONY: all build run test unit vet lint-template bench lambdas deploy clean pyenv

all: build

build:
	$(GO) build ./...

bin/tributary: $(shell find . -name '*.go' -not -path './.cache/*') go.mod go.sum
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

vet:
	$(GO) vet ./...

unit: pyenv
	$(GO) test -count=1 -timeout 20m ./...

lint-template: pyenv
	./scripts/lint-template.sh

test: vet unit lint-template

# Writes $(OUT)/bench.txt; about 3 minutes on 2 cores (first run also
# generates the ~100 MB input under .cache/bench).
bench:
	GO=$(GO) ./scripts/bench-run.sh $(OUT)/bench.txt

# Lambda bundles: dist/<fn>/bootstrap, linux/arm64, reproducible (-trimpath, no build id, no VCS stamp).
lambdas: $(addprefix dist/,$(addsuffix /bootstrap,$(FUNCTIONS)))

dist/%/bootstrap: $(shell find . -name '*.go' -not -path './.cache/*') go.mod go.sum
	mkdir -p $(dir $@)
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build $(GOFLAGS) -buildvcs=false -tags lambda.norpc -ldflags '$(LDFLAGS)' -o $@ ./functions/$*
	cd $(dir $@) && rm -f ../$*.zip && touch -t 198001010000 bootstrap && zip -X -q ../$*.zip bootstrap

deploy: lambdas lint-template
	sam deploy --template-file template.yaml --guided

clean:
	rm -rf bin dist $(OUT)
