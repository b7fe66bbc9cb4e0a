from tsumugi_sdk import Command, Plugin, Tool


class MyPlugin(Plugin):
    @Command("hello", description="打个招呼", prefix=["/hello"], usage="[名字]")
    async def hello(self, rest, **_):
        """A chat command: answered without the model."""
        return f"你好，{rest or '世界'}"

    @Tool(
        "add",
        description="把两个数相加。需要精确算加法时使用。",
        parameters={
            "a": {"type": "number", "description": "第一个数"},
            "b": {"type": "number", "description": "第二个数"},
        },
    )
    async def add(self, a, b):
        """A tool the model may call; what it returns goes back to the model."""
        return {"sum": a + b}


def create_plugin():
    return MyPlugin()
