"""Quick start: one GARM provider entry and one scale set under an organization, keeping one idle runner ready.

GARM's URL and login come from the stack config garm:url, garm:username and garm:password (see README.md, "Python").
"""
import pulumi
import pulumi_garm as garm

config = pulumi.Config()

# GARM loads providers from its config file only at start, so this resource edits the file and restarts GARM.
provider = garm.GarmProvider(
    "fake",
    name=config.get("providerName") or "fake",
    description="runners of the pulumi-garm quick start",
    executable=config.require("providerExecutable"),
    garm_config_path=config.require("garmConfigPath"),
    restart_command=config.require("restartCommand"),
    restart_timeout_seconds=30,
)

small = garm.GarmScaleSet(
    "small",
    name="ci-small",
    organization=config.get("organization") or "acme",
    # An output of the provider resource: Pulumi creates the provider first and deletes the scale set first.
    provider_name=provider.name,
    image="ubuntu-24.04",
    flavor="small",
    # Extra labels from the stack config; changing them replaces the scale set, new generation first.
    labels=["linux", "x64", *(config.get_object("extraLabels") or [])],
    max_runners=2,
    min_idle_runners=1,
    drain={"timeout_seconds": 120, "poll_seconds": 1},
)

pulumi.export("providerName", provider.name)
pulumi.export("liveName", small.live_name)
pulumi.export("scaleSetId", small.scale_set_id)
pulumi.export("labels", small.labels)
