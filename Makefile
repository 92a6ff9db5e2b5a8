# pulumi-garm make targets. `make demo` and `make test` are the two-command quick start (README).
SHELL := /bin/bash
.DEFAULT_GOAL := test
MOCHA_OPTIONS := --reporter ./dist/test/support/summary-reporter.js --exit
MOCHA := npx --no-install mocha $(MOCHA_OPTIONS)
# How many test files `make test` runs at once (mocha --parallel workers). Most of a file's time is waiting on GARM's
# timers and the Pulumi CLI, so three overlap well on 2 cores.
JOBS ?= 3
UNIT := 'dist/test/unit/**/*.test.js'
INTEGRATION := 'dist/test/integration/**/*.test.js'
E2E := 'dist/test/e2e/**/*.test.js'
# Long campaigns, kept out of `make test` (40-minute budget on the project's 2-core machine): `make long` runs them.
# scenarios.test.ts waits about 5 minutes for GARM's consolidation loop, the only way a disabled scale set learns that a
# job ended (6-7 minutes in all); pool-busy-destroy waits on real GARM for a pool's busy runner and examples-real-garm
# runs examples/quickstart's whole life on real GARM (about 2 minutes each); the fixed-seed fault campaign (`make chaos`
# runs more seeds) and the ten-scale-set drain display take about 1.5 minutes; real-garm-jobs checks GARM's own job
# handling against the mock GitHub (about 2 minutes), and import-programs-real-garm runs the Python and TypeScript
# programs import-plan writes through their whole life on real GARM (about 3 minutes; on the simulator they are in `make test`),
# and team-garm-real-garm runs issue 34's team scenario (the README's import walk-through on a team's GARM, changes,
# destroy) on real GARM (about 4 minutes; on the simulator, test/integration/plugin/team-garm.test.ts, in `make test`).
LONG := dist/test/e2e/scenarios.test.js dist/test/e2e/pool-busy-destroy.test.js dist/test/e2e/examples-real-garm.test.js dist/test/integration/chaos/campaign.test.js dist/test/integration/cli/drain-display.test.js dist/test/e2e/real-garm-jobs.test.js dist/test/e2e/import-programs-real-garm.test.js dist/test/e2e/team-garm-real-garm.test.js
NOT_LONG := $(foreach f,$(LONG),--ignore $(f))
# Where `make tools` puts GARM and the Pulumi CLI; outside the checkout so clean clones reuse them.
export PULUMI_GARM_CACHE ?= $(HOME)/.cache/pulumi-garm

.PHONY: setup build generate test unit integration e2e long demo bench tools schema plugin sdks clean

# Installs the npm dependencies (exact versions from package-lock.json) and links the package into its own
# node_modules, so the shim serialized into Pulumi state can require("pulumi-garm/provider") from the repo root.
setup: node_modules/.setup-done
node_modules/.setup-done: package.json package-lock.json
	npm ci --no-audit --no-fund
	ln -sfn .. node_modules/pulumi-garm
	touch $@

generate: setup
	scripts/generate-garm-types.sh

# `pulumi-garm/provider`, which every serialized provider requires, is dist/bundle/provider.js (package.json exports):
# the same provider/ sources as dist/provider, bundled with their dependencies into one file, which a provider process
# loads in half the CPU. Every resource kind, and state written by older versions, load that one module, so the
# run-wide registries (declareProvider, declareEntity) are shared.
build: setup
	npx --no-install tsc -p tsconfig.json
	npm run --silent bundle

unit: build
	$(MOCHA) --timeout 60000 $(UNIT)

integration: build
	$(MOCHA) --timeout 120000 $(NOT_LONG) $(INTEGRATION)

# End to end: real GARM v0.2.1 and the real Pulumi CLI (built by `make tools` when missing).
e2e: build tools
	$(MOCHA) --timeout 600000 $(NOT_LONG) $(E2E)

long: build tools
	$(MOCHA) --timeout 900000 $(LONG)

# Everything but the long campaigns, in one parallel mocha run (JOBS files at once; test/support/run-suite.ts packs the
# package and builds the plugin once for all workers, and starts the slowest files first), so one summary line covers
# it all. Measured: see docs/development.md.
test: build tools
	node dist/test/support/run-suite.js --jobs $(JOBS) $(NOT_LONG) dist/test/unit dist/test/integration dist/test/e2e -- $(MOCHA_OPTIONS) --timeout 120000

schema: build
	node dist/scripts/generate-schema.js

# The GARM resource plugin (pulumi-resource-garm) for Python, Go and YAML programs: a directory (a Pulumi.yaml can name it
# in plugins.providers) and the release archives for linux and darwin on amd64 and arm64 (docs/other-languages.md).
plugin: build
	provider-plugin/build.sh

# SDKs for the plugin, generated from the schema the plugin serves into sdk/python, sdk/go (a Go module with go.mod and
# go.sum) and sdk/nodejs-plugin, each then built.
sdks: plugin
	provider-plugin/gen-sdks.sh

bench: build
	node dist/bench/run.js
	node dist/bench/plugin-vs-dynamic.js

# Runs the examples/quickstart project as a user does (package installed from its npm tarball, `pulumi` run from the
# project directory with the real Node language host) against the in-process GARM simulator (no GARM, GitHub or cloud):
# preview, up, a label change, destroy. tools.sh is idempotent and returns at once when the CLI and the host are on PATH
# or cached, so only a fresh machine pays for building them.
demo: build
	@scripts/tools.sh pulumi >/dev/null
	@scripts/tools.sh nodejs >/dev/null
	node dist/scripts/demo.js

# The seeded fault campaign against the GARM simulator: `make chaos SEEDS=200 [FIRST=1] [LENGTH=8] [CONCURRENCY=1]` (make passes
# these to the runner in its environment), or one sequence with `REPLAY='<steps json>' make chaos`, as a failing seed
# prints it.
chaos: build
	node dist/test/integration/chaos/main.js

# setup first: the dynamic-provider plugin script placed beside the language host comes from node_modules/@pulumi/pulumi.
tools: setup
	scripts/tools.sh all

clean:
	rm -rf dist build
