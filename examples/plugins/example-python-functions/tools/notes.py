import json
import os

from tsumugi_sdk import Reply, Text

# Under data/: the bot does not watch it, so writing a note does not reload the plugin.
NOTES_FILE = os.path.join("data", "notes.json")


def _load():
    if not os.path.exists(NOTES_FILE):
        return {}
    with open(NOTES_FILE, encoding="utf-8") as handle:
        return json.load(handle)


async def remember_note(bot, event, config, text: str):
    notes = _load()
    chat = event.group_id or event.user_id
    notes[chat] = (notes.get(chat, []) + [text])[-config["max_notes"]:]
    os.makedirs("data", exist_ok=True)
    with open(NOTES_FILE, "w", encoding="utf-8") as handle:
        json.dump(notes, handle, ensure_ascii=False)
    await bot.send(event, [Reply(event.message_id), Text(f"记下了：{text}")])
    # None: the confirmation is sent, the turn ends without another model call.


async def list_notes(bot, event, config):
    # A dict goes back to the model, which reads the notes out in its own words.
    return {"notes": _load().get(event.group_id or event.user_id, [])}
