from framework_common.database_util.User import get_user

async def query_user_coins(bot, event, config, target_name: str):
    """前三个参数永远是 bot, event, config；第四个参数对应 parameters 里的 target_name"""
    # 从数据库中读取用户数据
    user = await get_user(event.user_id)
    coin_count = user.coin
    
    # 按照需求返回结构化 dict，触发 MaiReply 二次用少女口吻夸奖或调侃
    return {
        "user_id": event.user_id,
        "target": target_name,
        "coins": coin_count,
        "wallet_status": "富得流油" if coin_count > 1000 else "穷得叮当响"
    }
