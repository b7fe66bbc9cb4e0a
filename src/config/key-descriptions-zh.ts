/**
 * The Chinese meaning of every config key, for the Chinese key table in the README
 * (`npm run docs:config`). Keyed like the rows of the English table: the key path, plus the
 * variant in parentheses when a key means something different per adapter mode or provider
 * type. key-table.ts refuses to render while a key lacks its text here or a text names a key
 * that no longer exists.
 */
export const keyDescriptionsZh: Readonly<Record<string, string>> = {
  "server.host": "监听地址；监听非回环地址时必须设置 `server.token`。",
  "server.port": "端口；`0` 表示自动选一个空闲端口。",
  "server.token": "控制台和 `/api/` 的 Bearer 令牌；留空表示不用令牌（此时只能监听回环地址）。",
  "server.allowedHosts":
    '未设置令牌时，除回环地址外还允许请求使用的主机名，写作 `"host"`（任意端口）或 `"host:port"`，例如部署在反向代理之后时。',
  "storage.url":
    '数据库：`"sqlite:路径"`（相对于工作目录）、`"sqlite::memory:"`（仅在内存中），或 PostgreSQL 服务器 `"postgres://用户:密码@主机:5432/数据库"`（也接受 `"postgresql://"`；多个实例共用一个数据库时需要）。',
  "storage.retention.days": "删除早于这么多天的聊天消息；0 表示不按时间删除",
  "storage.retention.messagesPerSession": "每个会话最多保留的最新消息数；0 表示不限",
  "storage.spoolSize":
    "数据库无法写入（被锁、磁盘满、只读）时每张表在内存中暂存的行数；超出时先丢弃最早的未触发回复的消息",
  "bot.name": "机器人的名字；消息里提到它就会触发回复。",
  "bot.aliases": "其他也算作提到机器人的名字。",
  "bot.persona":
    "人设提示词，出现在每个系统提示词中；不设置时使用 prompts.language 对应语言的 `persona` 模板。",
  "bot.interests": "机器人关心的话题：谈到其中之一的消息更容易让它主动加入对话（chat.participation）。",
  "bot.voice":
    '人设的声音，按语音服务的 id 分别指定（llm.models.tts），例如 `{ openai: "nova", siliconflow: "FunAudioLLM/CosyVoice2-0.5B:anna", edge: "zh-CN-XiaoyiNeural", sovits: "<它 voices 里的名字>" }`；没写到的服务用它自己的默认声音。',
  "bot.admins":
    '可以使用管理员命令的用户，例如 `["10001"]`：只写号码表示 QQ（OneBot）用户；stdio 频道的用户必须连同插件一起写成 `"stdio.<pluginId>:<userId>"` 才算管理员。',
  adapters: "平台连接列表；各连接的 `id` 不能重复。",
  "adapters[].id": "连接的 id，在所有连接中唯一；显示在 `/healthz` 和日志中。",
  "adapters[].accessToken (type onebot)":
    "OneBot 访问令牌（`Authorization: Bearer …`）；留空表示不校验。`server.host` 不是回环地址时，`reverse-ws` 模式必须设置。",
  "adapters[].actionTimeoutMs": "调用平台 API 后等待结果的最长时间（毫秒）",
  "adapters[].path (mode reverse-ws)": "OneBot 实现连接到 `server.port` 上的这个路径。",
  "adapters[].path (mode http)": "OneBot 实现把事件 POST 到 `server.port` 上的这个路径。",
  "adapters[].url (mode reverse-ws)": "不使用（保留这个键是为了切换模式时只改一处）。",
  "adapters[].url (mode forward-ws)": "OneBot 实现监听的 WebSocket 地址。",
  "adapters[].url (mode http)": "OneBot 实现的 HTTP API 根地址，例如 `http://127.0.0.1:3000`。",
  "adapters[].reconnect.minDelayMs (mode forward-ws)": "断线重连的首次等待时间（毫秒）",
  "adapters[].reconnect.maxDelayMs (mode forward-ws)": "断线重连的最长等待时间（毫秒）",
  "adapters[].secret (mode http)":
    "HMAC 密钥，用于校验事件 POST 请求的 `X-Signature` 头；留空表示不校验。`server.host` 不是回环地址时必须设置。",
  "adapters[].appId (type qq-official)": "机器人的 AppID，见 QQ 机器人开放平台的开发设置。",
  "adapters[].secret (type qq-official)":
    "机器人的 AppSecret：用来校验 webhook 事件的签名和换取 access token。必填；从环境变量或 systemd 凭据读取，不要直接写在文件里。",
  "adapters[].path (type qq-official)":
    "平台把事件 POST 到 `server.port` 上的这个路径（回调地址，放在 HTTPS 反向代理之后）。",
  "adapters[].apiBase (type qq-official)": "OpenAPI 根地址（沙箱环境用 https://sandbox.api.sgroup.qq.com）。",
  "adapters[].tokenUrl (type qq-official)": "用 AppID 和 AppSecret 换取 access token 的地址。",
  "adapters[].markdown (type qq-official)":
    "以 markdown 消息（msg_type 2）发送文字；仅限平台已开通原生 markdown 的机器人。",
  "llm.providers": "提供模型的服务列表。",
  "llm.providers[].id": "服务的 id，即 `llm.models` 各项中 `/` 前面的部分。",
  "llm.providers[].timeoutMs": "单次请求的时间上限（毫秒）",
  "llm.providers[].apiKey (type openai-compatible)": "API 密钥；留空表示不使用。",
  "llm.providers[].apiKey (type openai / gemini / anthropic)": "API 密钥；留空表示不使用。",
  "llm.providers[].maxRetries (type openai-compatible)": "请求失败后的重试次数",
  "llm.providers[].maxRetries (type openai / gemini / anthropic)": "请求失败后的重试次数",
  "llm.providers[].headers (type openai-compatible)": "每个请求都附带的额外 HTTP 头。",
  "llm.providers[].headers (type openai / gemini / anthropic)": "每个请求都附带的额外 HTTP 头。",
  "llm.providers[].baseUrl (type openai-compatible)": "API 根地址，例如 `https://api.deepseek.com/v1`。",
  "llm.providers[].baseUrl (type openai / gemini / anthropic)": "API 根地址；不填时使用厂商的官方地址。",
  "llm.providers[].model (type llama-cpp)":
    '在进程内运行的 GGUF 模型：`.gguf` 文件路径，或推荐模型的名字（例如 `"qwen2.5-1.5b-instruct-q4"`，用 `npm run model -- pull` 下载）。',
  "llm.providers[].threads (type llama-cpp)":
    "CPU 线程数；`0` 表示物理核心数减一，留一个核心给机器人自己（线程再多只会让生成变慢）",
  "llm.providers[].contextSize (type llama-cpp)": "上下文窗口大小（token 数）",
  "llm.providers[].gpu (type llama-cpp)": 'GPU 加速：`"auto"` 表示有 GPU 就用，`false` 表示只用 CPU。',
  "llm.providers[].baseUrl (type gpt-sovits)":
    "GPT-SoVITS 的 API 服务（api_v2.py），例如 `http://127.0.0.1:9880`。",
  "llm.providers[].headers (type gpt-sovits)": "每个请求都附带的额外 HTTP 头。",
  "llm.providers[].textLang (type gpt-sovits)":
    "要朗读的文字的语言（text_lang）：auto、zh、en、ja、ko、yue 等。",
  "llm.providers[].voices (type gpt-sovits)":
    "声音名 → 它的参考音频 `{ refAudioPath, promptText, promptLang }`（服务端读取的路径、参考音频说的话、参考音频的语言）；`bot.voice` 选其中一个（没选时用第一个）。",
  "llm.providers[].proxy (type edge-tts)": "访问 Edge 朗读服务所经过的 HTTP 代理。",
  "llm.models.planner": "决定要做什么的模型，按顺序尝试。",
  "llm.models.replyer": "撰写回复文字的模型，按顺序尝试。",
  "llm.models.vision":
    "描述图片和表情的模型（必须能看图），按顺序尝试；为空时图片保持占位符，也不下载任何图片。",
  "llm.models.memory":
    "在后台学习长期记忆的模型（便宜的对话模型即可），按顺序尝试；为空时只保存规划器和插件主动记住的内容。",
  "llm.models.expressions":
    "在后台学习各群说话方式（chat.expressions）的模型，按顺序尝试；留空则用回复模型。",
  "llm.models.gate": "机器人主动加入对话之前先问一个小模型“要不要说”，以节省规划模型的花费；留空表示不问。",
  "llm.models.embedding":
    "向量模型（openai、openai-compatible 或 gemini 类型的服务商），其向量相似度和词项搜索一起用于回忆记忆，按顺序尝试；为空时只用词项。",
  "llm.models.speech":
    "语音转文字模型（openai 或 openai-compatible 类型、提供 POST /audio/transcriptions 的服务：Whisper、SenseVoice、本地 whisper 服务），把语音消息转成文字，按顺序尝试；为空时语音保持 [语音]，也不下载任何语音。",
  "llm.models.tts":
    "规划器的 send_voice 用来说话的语音合成模型，按顺序尝试：openai 或 openai-compatible 服务（POST /audio/speech：OpenAI、硅基流动 CosyVoice），gpt-sovits 和 edge-tts 服务（这两种 `/` 后面只是个名字）；为空时不提供 send_voice。",
  "llm.models.image":
    "规划器的 generate_image 用来画图的模型（openai 或 openai-compatible 服务，POST /images/generations：OpenAI、硅基流动 Kolors/FLUX），按顺序尝试；为空时不提供 generate_image。",
  "llm.acceptsImages":
    "能看图的模型：它们担任 planner 或 replyer 时，还会直接看到本轮新消息里的图片；其余模型只收到文字。",
  "llm.models.economy":
    "某个群或用户的花费达到预算的 limits.economyAt 之后，改由这些更便宜的模型同时担任规划器和回复模型，按顺序尝试；为空时不降级。",
  "llm.prices":
    '`"服务/模型"` → 每百万 token 的价格：每次调用的费用按当时的价格记下，用于控制台的账单和金额预算（limits.*Cost）。',
  "llm.modelMirror":
    '本地模型从这个 Hugging Face 镜像的地址下载，而不是 https://huggingface.co（与 HF_ENDPOINT 相同），例如 `"https://hf-mirror.com"`；为空时用 `npm run model` 的 HF_ENDPOINT 环境变量，否则用 huggingface.co。',
  "media.allowPrivateNetworks":
    "也从私有、回环和链路本地地址获取图片（OneBot 实现在本机或局域网上提供图片时）；默认拒绝，防止聊天里的图片被用来访问内网。",
  "media.allowLocalFiles":
    "`get_image` 回答的是本机文件路径时读取该文件（OneBot 实现与机器人在同一台机器上）；只读普通文件。",
  "media.maxBytes": "获取的图片最大字节数；超过的不下载",
  "media.timeoutMs": "一次获取（含重定向和解码）的时间上限（毫秒）",
  "media.maxVisionSide": "给模型或控制台看的图片最长边（像素）；更长的图片先缩小（省图片 token）",
  "agent.maxRounds": "一轮中最多调用规划器的次数",
  "agent.turnTimeoutMs": "一整轮的时间上限（毫秒）",
  "agent.maxWaitSeconds":
    "规划器的 wait 工具在一轮中总共最多能等待的秒数（各次调用合计；单次最多 60 秒）；用完后规划器会被告知必须立即决定",
  "prompts.language": "内置模板的语言（`prompts/<语言>/`）。",
  "prompts.dir":
    "自定义模板所在的文件夹，文件名与内置模板相同（planner.md 等）；缺少的模板仍用内置的。相对于配置文件所在目录。",
  "prompts.templates": "模板名 → 模板正文，优先于内置模板和 prompts.dir。",
  "agent.recoverWithinMs":
    "崩溃重启后，触发消息比这更新的回合会重新运行，更早的标记为中断（毫秒；0：从不重新运行）",
  "agent.deferToolsAbove":
    "一个聊天可用的插件和 MCP 工具多于这个数时，规划器只看到 agent.alwaysOnTools 和一个 tool_search 工具，由它在本轮余下的时间里找出其他工具（0：从不延迟）",
  "agent.alwaysOnTools":
    '工具延迟时仍向规划器声明的工具：工具名，或所有者（"插件id"、"mcp:服务器id"），其工具全部保留。',
  "agent.toolSearchResults": "一次 tool_search 调用最多返回的工具数",
  "chat.mode":
    "回复怎么写：`planner`（规划器决定，回复生成写出正文：每次回复调用两次模型）或 `single`（规划器的 reply 调用直接带上正文，不再调用回复生成：调用次数和等待时间减半，适合预算少、模型慢的部署）",
  "chat.triggers.mention": "@ 机器人，或提到它的名字或别名。",
  "chat.triggers.replyToSelf": "回复机器人发的某条消息。",
  "chat.triggers.keywords": "消息中包含其中任一关键词时触发机器人。",
  "chat.triggers.privateAlways": "每一条私聊消息。",
  "chat.triggers.poke": "有人戳了戳机器人（群聊或私聊）；戳别人从不触发。",
  "chat.realtime.windowMs": "多久没有新消息就关闭窗口（毫秒）",
  "chat.realtime.maxWindowMs": "窗口最长保持打开的时间（毫秒）",
  "chat.realtime.maxMessages": "窗口收集到这么多条消息时提前关闭",
  "chat.realtime.maxChars": "窗口收集到这么多字符时提前关闭",
  "chat.realtime.maxTurnMessages":
    "一轮最多读多少条新消息（机器人忙时等着的消息合在一起也不超过）；多出的最早的消息不放进提示词（仍然保存），并注明略去了几条",
  "chat.realtime.maxTurnChars": "一轮读的新消息最多多少字符；放不下的过长消息会被截断",
  "chat.realtime.maxTurnMessagesPerUser": "一轮最多读同一个人的多少条消息，一个人刷屏挤不掉别人的消息",
  "chat.digest.enabled": "机器人是否在没有被触发时也旁听群聊。",
  "chat.digest.intervalMs": "两次旁听之间的间隔（毫秒）",
  "chat.digest.minMessages": "至少攒够这么多条新消息才旁听一次",
  "chat.digest.maxMessages": "一次旁听最多看的消息数",
  "chat.digest.maxTranscriptChars": "一次旁听中聊天记录的最大字符数",
  "chat.history.maxMessages":
    "会话第一次提示词显示的历史消息条数；之后窗口增长到 growth × 此值，再退回到 (1 − dropFraction) × 此值",
  "chat.history.maxChars": "会话第一次提示词显示的历史字符数；与 maxMessages 一样限定窗口",
  "chat.history.dropFraction":
    "窗口满了时退回到最新的 (1 − dropFraction) × maxMessages 条、(1 − dropFraction) × maxChars 个字符以内（0.5：一半）。在此之前历史只增不减，相邻的提示词共享这段历史，可命中服务商的前缀缓存；0 且 growth 为 1 时只丢弃放不下的部分（窗口每轮滑动，缓存失效）。",
  "chat.history.growth":
    "窗口一次退回之前最多增长到多大：growth × maxMessages 条、growth × maxChars 个字符。越大退回越少（每次提示词更多部分命中服务商的缓存），但每次提示词的历史更多；1 表示窗口不超过 maxMessages 和 maxChars。",
  "chat.expressions.enabled":
    "是否学习各群的说话方式（用 llm.models.expressions，没有就用回复模型），并写进提示词；关闭时既不学习也不展示（已存的保留）。",
  "chat.expressions.learnEvery": "群里每有这么多条成员消息做一次学习",
  "chat.expressions.maxMessages": "一次学习最多读的最近消息数",
  "chat.expressions.maxLearnCallsPerDay": "每个群每天（按 chat.timezone）最多学习几次；0 表示不学习",
  "chat.expressions.maxEntries": "每个群最多保存（并展示）几条说法",
  "chat.avoidRepeating": "把机器人自己在该聊天里最近的几条消息告诉回复模型，让它别再说一遍；0 表示不展示",
  "chat.typingDelay.charsPerSecond": "打字速度（每秒字数）；0 表示立刻发送",
  "chat.typingDelay.maxMs": "一条消息发出前最长停顿多久（毫秒）",
  "chat.quote.enabled": "获取回复所引用的那条消息。",
  "chat.quote.resolveForward": "展开合并转发的消息。",
  "chat.quote.maxDepth": "嵌套的合并转发最多展开几层",
  "chat.quote.maxNodes": "最多展开多少条转发的消息",
  "chat.quote.maxChars": "引用文本的最大字符数",
  "chat.quote.timeoutMs": "每次获取的时间上限（毫秒）",
  "chat.summary.commands": "命令词，后面可以跟一个条数（`/总结 50`）；留空表示关闭这个命令。",
  "chat.summary.count": "命令没有指定条数时总结的消息数",
  "chat.summary.maxCount": "一条命令最多能要求总结的消息数",
  "chat.summary.maxTranscriptChars": "一次总结中聊天记录的最大字符数",
  "chat.timezone":
    '模型看到的所有时间（历史消息、引用块、当前时间）所用的 IANA 时区，例如 `"Asia/Shanghai"`；留空表示使用系统时区。',
  "chat.participation.talkValue":
    "机器人主动加入对话的积极程度，0 到 1：0 表示只在被叫到时回答；1 表示每条消息都会考虑",
  "chat.participation.schedule":
    '时段内使用另一个 talkValue，例如 `[{ from: "23:00", to: "08:00", talkValue: 0 }]`；取第一个包含当前时间的时段。',
  "chat.participation.schedule[].from": '开始时间，chat.timezone 中的 `"HH:MM"`。',
  "chat.participation.schedule[].to":
    '结束时间（不含），chat.timezone 中的 `"HH:MM"`；早于 `from` 时跨过午夜。',
  "chat.participation.schedule[].talkValue": "该时段内生效的 talkValue。",
  "chat.participation.minGapMs": "同一聊天中两条主动发言之间的最短间隔（毫秒）",
  "chat.participation.maxPerHour": "同一聊天中任意 60 分钟内最多主动发言几条",
  "chat.participation.maxConsecutive": "中间没有真人发言时机器人最多连续发几条消息；超过后不再主动发言",
  "chat.participation.quietPhrases": "成员的消息包含其中之一时，机器人在 quietMinutes 内不再主动发言。",
  "chat.participation.quietMinutes": "安静短语或 /quiet 让机器人不主动发言的时长（分钟）",
  "chat.participation.pingPongMs":
    "成员在机器人发言后这么短时间内就回应，算作乒乓守卫的一次快速回应（毫秒；0 表示不检查）",
  "chat.participation.pingPongRounds":
    "连续几次快速回应后，一小时内不再主动接这位成员的话（点名叫机器人时仍会回答）",
  "chat.participation.pingPongAddressedRounds":
    "连续几次快速回应（人跟不上的节奏）后，一小时内连这位成员点名的消息也不回答",
  "chat.participation.pingPongRepeatRounds":
    "连续几次快速回应、每次都和上一次几乎一样（同一个模板）后，一小时内连这位成员点名的消息也不回答",
  "chat.participation.restNotice":
    "乒乓守卫开始不回答某成员点名的消息时，告诉 TA 一次（提示词模板 participation_resting）",
  "chat.participation.settleMs": "主动发言要等到这么久没人发消息、也没人正在输入（毫秒）",
  "chat.participation.maxWaitMs": "主动发言最多等聊天安静下来这么久；仍然热闹就不发（毫秒）",
  "chat.otherBots":
    "群里其他机器人的用户 id：它们的消息从不触发机器人，也不算作机器人两条消息之间的真人发言。",
  "chat.welcome.enabled": "有成员入群时，以人设的口吻欢迎并 @ TA（每次入群只发一次）。",
  "chat.welcome.text": "欢迎语要说的内容（群规、链接等），由机器人用人设的口吻表达；没有模型回应时原样发送。",
  "chat.joinRequests":
    '机器人是群管理员时如何处理入群申请：`"off"`（不处理）、`"notify"`（把申请人的回答告诉群里的管理员）、`"review"`（模型按 chat.manage.rules 审核回答并给出建议，由管理员回复或 /approve 决定）、`"auto"`（按规则自动同意或拒绝，并记录理由）。',
  "chat.manage.tools":
    "是否提供管理工具（只给群主、管理员和 bot.admins，且机器人是群管理员时）；false 表示在该群或所有群都不提供。",
  "chat.manage.dryRun": "只在日志和时间线上记录管理工具和入群申请本应执行的操作，实际上什么也不做。",
  "chat.manage.notices": "向群主和管理员提供 group_notice 工具（发布群公告）。",
  "chat.manage.rules":
    '本群对新成员的规则，`"review"` 和 `"auto"` 按它审核入群申请（例如"回答里写出课程名"）。',
  "chat.groups":
    '按群号的单独设置：`{ "123456": { participation, persona, triggers, models, welcome, joinRequests, manage } }`；写了的键只在那个群里替换全局设置。',
  "chat.textChunkLimit": "单条文字消息的最大长度；更长的回复会被拆成多条发送",
  "chat.mentionAll":
    "允许机器人的消息（回复、提醒、定时消息）@全体成员；关闭时，模型或回复扩展写出的 @全体成员 会在发送前去掉",
  "access.privateChats": "是否回复私聊。",
  "access.allow":
    "回复哪些来源：消息所在的群、发送者或消息来源（平台、OneBot 连接、stdio 频道插件）只要有一项在列表中就回复。留空表示回复所有人。",
  "access.deny": "从不回复的来源，写法同 `access.allow`；与 `access.allow` 同时匹配时以这里为准。",
  "limits.userTurnsPerMinute": "一个用户在任意 60 秒内（所有聊天合计）最多能发起的轮数；`0` 表示不限",
  "limits.groupTurnsPerMinute": "一个群聊在任意 60 秒内最多能发起的轮数；`0` 表示不限",
  "limits.dailyTokens":
    "所有 LLM 调用每天最多使用的 token 数（提示词加生成），用完后不再开始新的一轮；“每天”按 `chat.timezone` 计算；`0` 表示不限",
  "limits.groupDailyTokens": "一个群聊的各轮每天最多使用的 token 数；`0` 表示不限",
  "limits.userDailyTokens":
    "一个用户发起的各轮每天最多使用的 token 数（所有聊天合计，私聊也算）；某一轮中途超出时，不再进行下一次模型调用；`0` 表示不限",
  "limits.dailyCost":
    "所有 LLM 调用每天最多花费的金额（按 llm.prices 计算，币种同 llm.prices），用完后不再开始新的一轮；`0` 表示不限",
  "limits.monthlyCost": "所有 LLM 调用每个自然月（按 `chat.timezone`）最多花费的金额；`0` 表示不限",
  "limits.groupDailyCost": "一个群聊的各轮每天最多花费的金额；`0` 表示不限",
  "limits.groupMonthlyCost": "一个群聊的各轮每个自然月最多花费的金额；`0` 表示不限",
  "limits.userDailyCost": "一个用户发起的各轮每天最多花费的金额（所有聊天合计）；`0` 表示不限",
  "limits.economyAt":
    "用掉任一预算（token 或金额）的这个比例之后，该群或该用户的对话改用 llm.models.economy，并私聊告知管理员一次该群已接近预算；`0` 表示不降级。",
  "limits.notify": "达到限制时在该聊天里提示一次（直到限制解除）；设为 `false` 则不提示。",
  "plugins.dirs": "插件目录：其中的每个子目录都是一个插件。",
  "plugins.disabled": "不加载的插件或单个组件。",
  "reminders.enabled": "提供 schedule 工具和 /remind（/提醒）、/reminders、/cancel 命令。",
  "reminders.maxPerPerson": "每人在一个聊天里最多几条待发的提醒",
  "reminders.maxPerChat": "一个聊天最多几条待发的提醒",
  "reminders.maxLateMs": "机器人停机期间错过、超过这么久的提醒标记为过期，不再补发（毫秒）",
  "reminders.maxDaysAhead": "最多提前几天设置提醒",
  schedules: "定时消息：在 cron 表达式的每个时间，向一个聊天发送一段文字或执行一个提示词。",
  "schedules[].cron": '什么时候：cron 表达式，按 chat.timezone（"0 9 * * 1"：每周一 09:00）。',
  "schedules[].chat": '发到哪里："group:<群号>" 或 "private:<QQ号>"，用第一个已连接的账号。',
  "schedules[].text": "原样发送的文字。",
  "schedules[].prompt": "让 replyer 模型以人设执行的指令（如总结昨天的聊天）；模型失败时不发送。",
  "plugins.config": "插件 id → 该插件的配置对象（按插件自己的 schema 校验）。",
  "plugins.sandbox":
    "没有列为受信任的 stdio 插件、Python 插件和 MCP stdio 服务器如何启动。auto：能运行 bubblewrap（bwrap）的地方隔离运行，否则不隔离（干净的环境变量；机器人以 root 运行时换成另一个用户；内存上限）并警告一次；bwrap：隔离运行，bwrap 无法运行时拒绝启动；off：从不隔离（与没有 bwrap 时的 auto 相同，但不警告）。在进程下次启动时生效。见 docs/security.md。",
  "plugins.trusted":
    "进程以机器人自己的用户、不加隔离运行的插件（与引入沙箱之前相同；MCP 服务器用 mcp.servers[].trusted）。Node 插件总是在机器人进程内运行。",
  "plugins.sandboxMemoryMb":
    "不受信任的插件或 MCP 服务器进程最多可分配的内存（堆和匿名映射，RLIMIT_DATA），单位 MB；0：不限。",
  "plugins.sandboxUid":
    "机器人以 root 运行时：不受信任的插件和 MCP 服务器进程使用的用户 id（65534：nobody）。",
  "plugins.sandboxGid": "机器人以 root 运行时：它们使用的组 id（65534：nogroup）。",
  "mcp.pingIntervalMs": "多久 ping 一次已连接的服务器；没有回应的服务器视为断开，会重新连接（毫秒）",
  "mcp.servers": "Model Context Protocol 服务器：每个是说 stdio 的子进程（command）或一个 HTTP 端点（url）。",
  "mcp.servers[].id":
    '服务器 id，在 MCP 服务器之间唯一：它的工具对模型叫作 "mcp__<id>__<工具>"，在 plugins.disabled 里写作 "mcp:<id>" / "mcp:<id>.<工具>" 来停用。',
  "mcp.servers[].enabled": "false：不启动也不连接这个服务器。",
  "mcp.servers[].trusted":
    "stdio 服务器：true 时以机器人自己的用户、不加隔离运行；false（默认）时按 plugins.sandbox 对不受信任插件的方式启动。",
  "mcp.servers[].command":
    "stdio 服务器：程序和参数，例如 [node, server.mjs]，作为子进程启动（不经过 shell）。command 和 url 二选一。",
  "mcp.servers[].cwd":
    "stdio 服务器：启动时所在的目录（默认为机器人的工作目录；隔离运行时为一个私有的空目录）。隔离运行的服务器只能读取它。",
  "mcp.servers[].env":
    "stdio 服务器：在像 stdio 插件一样继承的基本变量（PATH、HOME、USER、LANG、LC_*、TZ、临时目录）之外添加的环境变量；机器人自己的密钥不会传过去。",
  "mcp.servers[].url": "HTTP 服务器：它的端点，例如 http://127.0.0.1:8808/mcp。command 和 url 二选一。",
  "mcp.servers[].transport": "HTTP 服务器：streamable-http（当前的服务器）或 sse（较早的服务器）。",
  "mcp.servers[].headers": "HTTP 服务器：每个请求都带上的请求头，例如 Authorization。",
  "mcp.servers[].timeoutMs": "一次工具调用的时间上限（毫秒）",
  "mcp.servers[].chatScope": "在哪里提供该服务器的工具：所有聊天、群聊或私聊。",
  "mcp.servers[].allowedSessions":
    '只有这些会话能用它的工具：会话 id 或其 "group:<id>" / "private:<id>" 结尾；不填表示所有会话。',
  "media.vision.maxPerTurn": "每轮最多调用模型描述的图片数；其余（已缓存的除外）保持占位符",
  "media.vision.maxPerDay":
    "本进程每天最多尝试描述的图片数：每张在下载前就计数，不论能否读取（在内存中按本地日期计数，重启后重新计数）",
  "media.vision.onDemand":
    "只描述本轮指向的图片（触发的消息、每条触发前紧挨的一条消息、它们引用的内容）；聊天里的其他图片保持 [图片]，除非以前描述过。关闭时描述历史窗口里所有新图片（受上限约束）。",
  "media.vision.timeoutMs": "描述一张图片（下载和模型调用合计）的最长时间（毫秒）",
  "media.speech.maxPerTurn": "每轮最多调用模型转写的语音数；其余（已缓存的除外）保持占位符",
  "media.speech.maxPerDay":
    "本进程每天最多尝试转写的语音数：每条在下载前就计数，不论能否读取（在内存中按本地日期计数，重启后重新计数）",
  "media.speech.maxSeconds": "转写的语音最长多少秒；更长的保持占位符",
  "media.speech.timeoutMs": "转写一条语音（下载、转换和模型调用合计）的最长时间（毫秒）",
  "media.tts.maxChars": "一条语音最多朗读多少个字；更长的回复以文字发送",
  "media.tts.maxPerTurn": "每轮最多发几条语音；之后的 send_voice 被拒绝",
  "media.tts.maxPerDay":
    "本进程每天在所有聊天里最多发几条语音（在内存中按本地日期计）；之后的 send_voice 被拒绝",
  "media.tts.userMaxPerDay": "每位成员的轮次每天最多发几条语音（在内存中按本地日期计）；0 表示不按成员限制",
  "media.tts.timeoutMs": "朗读一段文字（列表里所有模型合计）的最长时间（毫秒）",
  "media.tts.silk":
    "发给 OneBot 实现之前先把语音编码成 SILK（给只能播放 SILK 的实现用）；NapCat 和 LLOneBot 直接接受 WAV 或 MP3，qq-official 适配器会自己编码 SILK。",
  "media.images.size": '要求的图片尺寸，写作 `"宽x高"`（作为 `size` 发送；模型必须支持）',
  "media.images.maxPromptChars": "发给画图模型的描述最多多少个字；更长的被拒绝",
  "media.images.maxBytes": "接受模型返回的图片（Base64 或下载的）的最大字节数",
  "media.images.maxPerTurn": "每轮最多画几张图；之后的 generate_image 被拒绝",
  "media.images.maxPerDay":
    "本进程每天在所有聊天里最多画几张图（在内存中按本地日期计）；之后的 generate_image 被拒绝",
  "media.images.userMaxPerDay": "每位成员的轮次每天最多画几张图（在内存中按本地日期计）；0 表示不按成员限制",
  "media.images.tokensPerPicture": "服务没有报告用量时，一张图在每日 token 预算（limits.*）里算多少 token",
  "media.images.timeoutMs": "画一张图（列表里所有模型和下载合计）的最长时间（毫秒）",
  "stickers.enabled": "是否收藏聊天里描述过的表情包并向规划器提供 send_sticker；关闭时既不收藏也不提供",
  "stickers.groups": "收藏和发送表情包的群号；留空表示所有群和私聊，填写后只在这些群",
  "stickers.capacity": "最多收藏的表情包数；超出时丢弃用得最少的（其次是最久没用的、最早收藏的）",
  "stickers.maxTotalBytes":
    "所有收藏的表情包合计最多占用的字节数（保存在数据库中）；超出时丢弃用得最少的（其次是最久没用的、最早收藏的）",
  "stickers.shareAcrossChats":
    "是否把在一个聊天里收藏的表情包也发到其他聊天；关闭时表情包只在收藏它的聊天里发送",
  "memory.enabled":
    "是否记忆：提示词里的回忆、规划器的 remember 和 recall 工具、后台学习（需要 llm.models.memory）、/forget 和 /memory；关闭时不回忆也不学习（已存的保留）",
  "memory.recallChars": "一次提示词中回忆内容的最多字符数",
  "memory.recallLimit": "一次提示词中最多出现的记忆条数",
  "memory.learnEvery": "同一聊天每存下这么多条消息做一次后台学习（用 llm.models.memory 阅读新的一段聊天）",
  "memory.maxLearnMessages": "一次学习最多阅读的消息数",
  "memory.maxLearnCallsPerDay": "每个聊天每天（按 chat.timezone）最多学习几次，让热闹的群学习的花费有上限",
  "memory.forgetCommands":
    "忘记发送者相关的一切记忆的命令词（管理员可以指定用户 id 或记忆编号 #id）；留空关闭该命令",
  "memory.showCommands": '显示关于发送者的记忆的命令词（管理员可以指定用户 id 或 "group"）；留空关闭该命令',
  "knowledge.dirs":
    "监视其中文档的文件夹（相对于工作目录）；每个文件的范围来自旁边的 `<文件>.scope.yaml`、文件夹里的 `scopes.yaml` 或控制台（都没有说明时为所有聊天）",
  "knowledge.autoRetrieve":
    "是否把与本回合新消息最相关的段落放进提示词（在聊天之后）；文档的范围可以为该文档关闭",
  "knowledge.autoRetrieveLimit": "一次提示词中最多放入的段落数",
  "knowledge.autoRetrieveTokens":
    "一次提示词中放入段落的最多 token 数（每个中日韩字符算 1，其他每 4 个字符算 1）",
  "knowledge.searchLimit": "一次 search_knowledge 调用最多返回的段落数",
  "knowledge.maxFileBytes": "索引的文档文件最大字节数；更大的文件会列出并说明原因",
  "knowledge.maxPdfPages": "PDF 最多索引的页数（其余页不索引，控制台会说明）",
  "knowledge.readTimeoutMs":
    "读取一个文档文字的最长时间（毫秒，在单独的工作线程中）；超时或内存耗尽的文档会被隔离，文件改动前不再读取",
  "knowledge.chunkChars": "文档按标题和段落切成的段落最长字符数",
  "search.provider":
    "searxng（自建 SearXNG 的 JSON 接口，不需要密钥）、tavily、bing（Bing Web Search API）或 brave（Brave Search API）；不设置则没有 web_search 工具",
  "search.url":
    "搜索服务的基础 URL：searxng 必填（其 GET /search?q=…&format=json）；需要密钥的服务默认用其公共 API",
  "search.apiKey": "tavily、bing 或 brave 的密钥（保密）；为空表示没有",
  "search.maxResults": "一次 web_search 调用最多返回的结果数",
  "search.timeoutMs": "一次搜索或一次抓取网页的最长时间（毫秒）",
  "search.fetchPage":
    "是否在 web_search 旁边提供 fetch_page：抓取一个网页的正文，方式与抓取聊天图片相同（除非 media.allowPrivateNetworks，否则不访问内网地址；大小和时间有上限）",
  "search.maxPageBytes": "fetch_page 读取的网页最大字节数",
  "search.maxPageChars": "fetch_page 返回的网页正文最多字符数",
  "cluster.redisUrl": '各实例协调所用的 Redis，例如 "redis://:密码@10.0.0.5:6379/0"；为空：不组成集群。',
  "cluster.secret":
    '所有实例共用、别人都不知道的密钥：实例之间的每条消息都用它签名（HMAC-SHA256），签名不对的消息会被拒绝。设置了 redisUrl 时必填，至少 16 个字符，例如 "openssl rand -hex 32" 的输出，最好放在环境变量里。',
  "cluster.instanceId":
    "本实例在集群中的名字（1-64 个小写字母、数字、_ 或 -）；为空：主机名加进程号。名字固定时，重启后的实例会立即自己处理它被打断的回合。",
  "cluster.leaseMs":
    "实例对一个会话或账号的占用在不续期时能保持多久：一个实例死掉后，它的工作大约在这么久之后被其他实例接管（毫秒）",
  "cluster.keyPrefix": "所有 Redis 键的前缀，使多个集群可以共用一个 Redis。",
  "monitor.maxEvents": "最多保留的监控事件数；超出时删除最早的",
  "monitor.maxAgeHours": "监控事件保留的小时数，更早的会被删除",
  "log.level": "写入日志的最低级别。",
  "log.messageText": "把收到的每条消息的前 80 个字符写入日志（info）。关闭时只记录其 id、长度和消息段类型。",
};
