plugin_description = "群备忘录"

dynamic_imports = {
    "run.example_python_functions.tools.notes": ["remember_note", "list_notes"]
}

function_declarations = [
    {
        "name": "remember_note",
        "description": "记下群友要求记住的一条备忘（会直接回复确认，不需要再说话）",
        "parameters": {
            "type": "object",
            "properties": {
                "text": {"type": "string", "description": "要记住的内容"}
            },
            "required": ["text"]
        }
    },
    {
        "name": "list_notes",
        "description": "读出本群记下的全部备忘"
    }
]
