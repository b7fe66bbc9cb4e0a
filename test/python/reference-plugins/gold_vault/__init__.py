plugin_description = "小金库积分服务"

dynamic_imports = {
    "run.gold_vault.service": ["query_user_coins"]
}

function_declarations = [
    {
        "name": "query_user_coins",
        "description": "查询当前群友或指定成员的小金库金币余额与钱包等级",
        "parameters": {
            "type": "object",
            "properties": {
                "target_name": {
                    "type": "string",
                    "description": "要查询的用户昵称，若用户询问自己的资产则填'self'"
                }
            },
            "required": ["target_name"]
        }
    }
]
