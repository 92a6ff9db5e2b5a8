# pulumi-garm make targets. `make demo` and `make test` are the two-command quick start (README).
SHELL := /bin/bash
.DEFAULT_GOAL := test
MOCHA := npx --no-install mocha --reporter spec --exit

.PHONY: setup build generate test unit integration e2e demo bench tools schema clean

# Installs the npm dependencies (exact versions from package-lock.json) and links the package into its own
# node_modules, so the shim serialized into Pulumi state can require("pulumi-garm/provider") from the repo root.
setup: node_modules/.setup-done
node_modules/.setup-done: package.json package-lock.json
	npm ci --no-audit --no-fund
	ln -sfn .. node_modules/pulumi-garm
	touch $@

generate: setup
	scripts/generate-garm-types.sh

build: setup
	npx --no-install tsc -p tsconfig.json

unit: build
	$(MOCHA) 'dist/test/unit/**/*.test.js'

integration: build
	$(MOCHA) --timeout 60000 'dist/test/integration/**/*.test.js'

test: build
	$(MOCHA) --timeout 60000 'dist/test/unit/**/*.test.js' 'dist/test/integration/**/*.test.js'

schema: build
	node dist/scripts/generate-schema.js

bench: build
	node dist/bench/run.js

e2e demo:
	@echo "make $@: not built yet (see the open issues); nothing was run" >&2; exit 1

tools:
	scripts/tools.sh all

clean:
	rm -rf dist
