"""Class style (MaiBot's): a Plugin subclass, decorated methods, create_plugin()."""
import random

from tsumugi_sdk import Command, Plugin, Tool


class PickerPlugin(Plugin):
    @Tool(
        "choose",
        description="从群友给出的几个选项里随机挑一个（吃什么、去哪儿、先做哪件事）",
        parameters={
            "options": {"type": "array", "items": {"type": "string"}, "minItems": 2, "description": "所有选项"},
        },
    )
    async def choose(self, options):
        # A dict goes back to the model, which announces the choice in its own words.
        return {"choice": random.choice(options), "options": options}

    @Command("pick", description="随机挑一个", usage="<选项1> <选项2> …")
    def pick(self, args):
        if len(args) < 2:
            return "至少给我两个选项哦"
        self.logger.info("choosing among %d options", len(args))
        return f"{self.config['prefix']}：{random.choice(args)}"


def create_plugin():
    return PickerPlugin()
