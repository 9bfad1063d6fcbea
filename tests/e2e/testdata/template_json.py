"""Prints a CloudFormation/SAM template (YAML with !Sub, !If, ... tags) as
JSON, with the short-form tags expanded to Fn::Sub, Fn::If, ... by the SAM
translator's own parser (the one `sam validate` uses)."""
import json
import sys

from samtranslator.yaml_helper import yaml_parse

json.dump(yaml_parse(open(sys.argv[1]).read()), sys.stdout)
