"""Functions: read what GARM holds without managing it, and build a scale set on it.

GARM's URL and login come from the stack config garm:url, garm:username and garm:password (docs/other-languages.md).
"""
import pulumi
import pulumi_garm as garm

config = pulumi.Config()

controller = garm.get_controller()
org = garm.get_organization(name=config.get("organization") or "acme")
linux = garm.get_template(forge="github", os_type="linux")
providers = garm.get_providers().providers

small = garm.GarmScaleSet(
    "small",
    name="ci-small",
    entity_id=org.id,
    provider_name=providers[0].name,
    template_id=linux.id,
    image="ubuntu-24.04",
    flavor="small",
    labels=["linux", "x64"],
    max_runners=2,
    min_idle_runners=1,
    drain={"timeout_seconds": 120, "poll_seconds": 1},
)

pulumi.export("webhookUrl", controller.controller_webhook_url)
pulumi.export("organizationId", org.id)
pulumi.export("templateName", linux.name)
pulumi.export("liveName", garm.get_scale_set_output(id=small.scale_set_id).name)
pulumi.export("runners", garm.get_runners_output(scale_set_id=small.scale_set_id).runners)
