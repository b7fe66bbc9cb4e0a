/** The console's text in Chinese and English; the language follows the browser until chosen. */

import type { MonitorEventType } from "./types.ts";

export type Lang = "zh" | "en";

const LANG_KEY = "tsumugi.lang";

const TEXT = {
  appTitle: ["紬 控制台", "Tsumugi console"],
  navPlayground: ["试聊", "Playground"],
  navMonitor: ["时间线", "Timeline"],
  navChats: ["聊天记录", "Chats"],
  navMemory: ["记忆", "Memory"],
  navModels: ["模型与用量", "Models & spend"],
  navPlugins: ["插件", "Plugins"],
  navMcp: ["MCP 服务器", "MCP servers"],
  navConfig: ["配置", "Config"],
  navSetup: ["首次设置", "First run"],
  navConnect: ["连接 QQ", "Connect QQ"],
  logout: ["退出登录", "Log out"],
  language: ["English", "中文"],
  loading: ["加载中…", "Loading…"],
  retry: ["重试", "Retry"],
  error: ["出错了", "Something went wrong"],
  save: ["保存", "Save"],
  saving: ["保存中…", "Saving…"],
  test: ["测试", "Test"],
  testing: ["测试中…", "Testing…"],
  copy: ["复制", "Copy"],
  copied: ["已复制", "Copied"],
  search: ["搜索", "Search"],
  loadOlder: ["加载更早的", "Load older"],
  none: ["没有内容", "Nothing here"],
  connected: ["已连接", "connected"],
  disconnected: ["未连接", "not connected"],
  storageDegraded: [
    "数据库暂时无法写入，消息先存在内存中",
    "database cannot be written; messages are held in memory",
  ],

  loginTitle: ["登录控制台", "Log in to the console"],
  loginHint: [
    "这个机器人设置了访问令牌（server.token）。请输入它：",
    "This bot has an access token (server.token). Enter it:",
  ],
  loginToken: ["访问令牌", "Access token"],
  loginSubmit: ["登录", "Log in"],
  loginWrong: ["令牌不对，请重试。", "That token is wrong. Try again."],

  noModelBanner: [
    "还没有配置模型：机器人会收下消息，但不会回复。",
    "No model is configured: the bot will read messages but will not answer.",
  ],
  noModelLink: ["去设置模型", "Set up a model"],

  pgChatType: ["聊天类型", "Chat"],
  pgGroup: ["群聊", "Group"],
  pgPrivate: ["私聊", "Private"],
  pgGroupId: ["群号", "Group id"],
  pgUserId: ["我的 QQ 号", "My user id"],
  pgUserName: ["我的昵称", "My name"],
  pgPlaceholder: [
    "说点什么…（Enter 发送，Shift+Enter 换行）",
    "Say something… (Enter sends, Shift+Enter new line)",
  ],
  pgSend: ["发送", "Send"],
  pgMention: ["@机器人", "@ the bot"],
  pgImage: ["图片", "Image"],
  pgQuote: ["引用", "Quote"],
  pgQuoting: ["引用：", "Quoting:"],
  pgCancel: ["取消", "Cancel"],
  pgWhy: ["为什么这样回复？", "Why this reply?"],
  pgSilent: ["机器人没有回复：", "The bot stayed silent:"],
  pgFailed: ["这一轮失败了：", "The turn failed:"],
  pgSeeTimeline: ["查看时间线", "See the timeline"],
  pgEmpty: [
    "在这里和机器人聊天，就像在 QQ 群里一样：可以 @ 它、引用消息、发图片。",
    "Chat with the bot here as in a QQ group: mention it, quote messages, send pictures.",
  ],

  monSearch: ["按 reply_id 或会话搜索", "Search by reply_id or session"],
  monLive: ["实时", "Live"],
  monNoTurns: ["还没有记录到任何回合。", "No turns recorded yet."],
  monPick: ["选择左侧的一个回合查看详情。", "Pick a turn on the left to see what happened."],
  monTriggers: ["触发消息", "Triggering messages"],
  monRound: ["规划第 {n} 轮", "Planner round {n}"],
  monModel: ["模型", "Model"],
  monLatency: ["耗时", "Latency"],
  monFirstToken: ["首字耗时", "First token"],
  monTokens: ["tokens", "Tokens"],
  monPrompt: ["提示词", "Prompt"],
  monToolCalls: ["工具调用", "Tool calls"],
  monToolResult: ["工具结果", "Tool result"],
  monText: ["模型文字", "Model text"],
  monReplyText: ["写出的回复", "Reply written"],
  monFinish: ["结束原因", "Finish reason"],
  monSent: ["已发送", "Sent"],
  monHook: ["钩子决定", "Hook decision"],
  monFinished: ["回合结束", "Turn finished"],
  monStarted: ["回合开始", "Turn started"],
  monWhySilent: ["为什么没有回复", "Why it stayed silent"],
  monReason: ["原因", "Reason"],
  monDuration: ["用时", "Duration"],
  monRounds: ["{n} 轮", "{n} rounds"],
  monRunning: ["进行中", "running"],
  statusReplied: ["已回复", "replied"],
  statusSilent: ["未回复", "silent"],
  statusFailed: ["失败", "failed"],
  statusInterrupted: ["已中断", "interrupted"],
  monRecoveredFrom: ["重新运行重启前被中断的回合：", "Runs again the turn a restart interrupted:"],
  monPictureKind: ["类型", "Kind"],
  monSticker: ["表情", "sticker"],
  monImage: ["图片", "picture"],
  monCacheHit: ["缓存命中，没有调用模型", "cache hit: no model call"],
  monFetchTime: ["下载耗时", "Fetch"],
  monVisionStage: ["失败环节", "Failed at"],
  monStageFetch: ["下载图片", "fetching the picture"],
  monStageModel: ["调用视觉模型", "the vision model"],
  monSkipped: ["{n} 张图片保持为 [图片]", "{n} pictures stay [图片]"],
  monCapTurn: [
    "超出每回合上限（media.vision.maxPerTurn）",
    "over the per-turn cap (media.vision.maxPerTurn)",
  ],
  monCapDay: ["超出每日上限（media.vision.maxPerDay）", "over the daily cap (media.vision.maxPerDay)"],
  picture: ["图片", "picture"],
  pictureUnavailable: ["无法显示", "cannot be shown"],
  pictureShows: ["图片内容：", "Shows:"],
  stickerMeans: ["表情含义：", "Means:"],

  chatsSearch: ["按群号、QQ 号或会话搜索", "Search by group, user or session"],
  chatsMessageSearch: ["在这个会话里搜索消息", "Search messages in this chat"],
  chatsMessages: ["{n} 条消息", "{n} messages"],
  chatsPick: ["选择一个会话查看记录。", "Pick a chat to read its history."],

  memSearch: ["搜索记忆内容或称呼", "Search what is remembered, or names"],
  memAbout: ["关于", "About"],
  memPerson: ["某人（QQ 号）", "A person (user id)"],
  memGroup: ["某群（群号）", "A group (group id)"],
  memAnyone: ["所有人和群", "Everyone"],
  memSubjectId: ["QQ 号或群号", "User or group id"],
  memFilter: ["筛选", "Filter"],
  memClear: ["清除筛选", "Clear filter"],
  memNone: ["还没有记住任何事。", "Nothing is remembered yet."],
  memPick: ["选择一条记忆查看来源、修改或删除。", "Pick a memory to see its sources, edit or delete it."],
  memConfirmations: ["确认 {n} 次", "confirmed {n}×"],
  memConfirmationCount: ["确认次数", "Confirmations"],
  memPersonTag: ["QQ", "user"],
  memGroupTag: ["群", "group"],
  memOrigin: ["来源方式", "Learned by"],
  memOrigin_tool: ["对话中主动记住", "remember in a turn"],
  memOrigin_learned: ["后台学习", "background learning"],
  memOrigin_plugin: ["插件", "a plugin"],
  memOrigin_console: ["控制台", "the console"],
  memSubject: ["对象", "Subject"],
  memCreated: ["首次记住", "First learned"],
  memUpdated: ["最近修改", "Last changed"],
  memConfirmedAt: ["最近确认", "Last confirmed"],
  memSession: ["记住时所在会话", "Learned in"],
  memSources: ["来源消息", "Source messages"],
  memNoSources: [
    "没有来源消息（在控制台写入或由插件写入）。",
    "No source messages (written in the console or by a plugin).",
  ],
  memSourceGone: ["这条消息已不在聊天记录中", "this message is no longer in the history"],
  memOpenChat: ["打开会话", "Open the chat"],
  memEdit: ["修改", "Edit"],
  memCancel: ["取消", "Cancel"],
  memDelete: ["删除", "Delete"],
  memDeleteConfirm: ["确定删除这条记忆？", "Delete this memory?"],
  memDeleteYes: ["确定删除", "Yes, delete"],
  memDeleted: ["已删除。", "Deleted."],
  memForgetPerson: ["忘记这个人的一切", "Forget everything about this person"],
  memForgetGroup: ["忘记这个群的一切", "Forget everything about this group"],
  memForgetConfirm: [
    "确定忘记关于 {name} 的全部记忆？也会删除只从 TA 的消息中学到的内容，之前的消息不会再被学习。",
    "Forget everything about {name}? What was learned only from their messages goes too, and their earlier messages are not learned from again.",
  ],
  memForgetGroupConfirm: ["确定忘记关于 {name} 的全部记忆？", "Forget everything about {name}?"],
  memForgetYes: ["确定忘记", "Yes, forget"],
  memForgotten: ["已忘记 {n} 条记忆。", "{n} memories forgotten."],
  memAdd: ["添加一条记忆", "Add a memory"],
  memChanges: ["最近的记忆变化", "Recent memory changes"],
  memAddContent: ["要记住的事（一句话）", "The fact (one sentence)"],
  memAddSave: ["记住", "Remember"],
  monRecalled: ["放进提示词的记忆（{chars} 字）", "Memories put in the prompt ({chars} characters)"],
  monLearnedBy: ["方式", "By"],
  monMemAdded: ["新记住", "Added"],
  monMemUpdated: ["已更新", "Updated"],
  monMemDeleted: ["已删除", "Deleted"],
  monMemWas: ["原为", "was"],
  monForgotten: ["忘记了 {n} 条记忆", "{n} memories forgotten"],
  monForgottenBy_command: ["用户发送忘记命令", "the forget command"],
  monForgottenBy_console: ["在控制台中", "in the console"],
  monForgottenBy_recall: ["消息被撤回", "a message was recalled"],

  modelsProviders: ["模型服务", "Providers"],
  modelsTasks: ["各任务使用的模型（按顺序回退）", "Models per task (tried in order)"],
  modelsKeySet: ["已设置密钥", "key set"],
  modelsNoKey: ["无密钥", "no key"],
  modelsNoProviders: ["还没有模型服务。", "No providers yet."],
  modelsUsage: ["Token 用量", "Token usage"],
  modelsDays: ["最近 {n} 天", "Last {n} days"],
  modelsCalls: ["调用", "Calls"],
  modelsFailures: ["失败", "Failures"],
  modelsPrompt: ["输入 tokens", "Prompt tokens"],
  modelsCompletion: ["输出 tokens", "Completion tokens"],
  modelsAvgLatency: ["平均耗时", "Avg latency"],
  modelsCost: ["估算费用", "Est. cost"],
  modelsTask: ["任务", "Task"],
  modelsModel: ["模型", "Model"],
  modelsNoUsage: ["这段时间没有调用模型。", "No model calls in this period."],
  modelsPriceHint: [
    "在 llm.prices 里填写每百万 tokens 的价格即可看到费用估算。",
    "Set prices per million tokens in llm.prices to see cost estimates.",
  ],
  modelsTotal: ["合计", "Total"],
  modelsVisionLocalOnly: [
    "看图（vision）只配置了本地模型：本地模型看不到图片，图片会保持为 [图片]。要让机器人看懂图片，请在 llm.models.vision 里加一个能识图的在线模型。",
    "The vision task lists only local models: a local model cannot see pictures, so they stay [图片]. To have pictures described, add an online model that accepts images to llm.models.vision.",
  ],

  configFile: ["配置文件", "Config file"],
  configReadOnly: [
    "机器人启动时没有可写的配置文件，这里只能查看。",
    "The bot was started without a config file it can write; this page is read-only.",
  ],
  configSecrets: [
    "密钥显示为 ********，保存时保留原值。保存前会按配置结构校验，保存后自动热加载。",
    "Secrets show as ********; saving keeps their values. The file is checked against the schema before it is saved and reloaded on the fly.",
  ],
  configSaved: ["已保存并重新加载。", "Saved and reloaded."],
  configRestart: ["这些改动需要重启才生效：", "These changes apply after a restart:"],
  configProblems: ["配置有问题，没有保存：", "The config has problems and was not saved:"],
  configNoChange: ["没有改动。", "No changes."],

  setupTitle: ["设置一个模型", "Set up a model"],
  setupIntro: [
    "选择模型服务，填写地址、密钥和模型名，先测试再保存。保存后会写入配置文件并立即生效。",
    "Pick a provider type, enter its URL, key and model, test it, then save. It is written to the config file and used at once.",
  ],
  setupConfigured: ["已配置的规划模型：", "Planner models configured:"],
  setupType: ["服务类型", "Provider type"],
  setupBaseUrl: ["接口地址（Base URL）", "Base URL"],
  setupApiKey: ["API 密钥", "API key"],
  setupModel: ["模型名", "Model"],
  setupTestOk: ["可以用：{ms} ms，模型回答「{text}」", "Works: {ms} ms, the model said “{text}”"],
  setupTestFail: ["测试失败：", "Test failed:"],
  setupSaved: ["已保存到 {file}。现在可以去试聊了。", "Saved to {file}. You can now chat in the playground."],
  setupGoPlayground: ["去试聊", "Go to the playground"],
  localTitle: ["本地模型（不需要 API 密钥）", "Local model (no API key)"],
  localIntro: [
    "在本机运行一个小模型：免费、私密，下载一次后可离线使用；比大模型慢、也更简单。",
    "Runs a small model on this machine: free, private, offline after one download; slower and simpler than large API models.",
  ],
  localDownload: ["下载并使用（{size}）", "Download and use ({size})"],
  localUse: ["使用这个模型", "Use this model"],
  localRuntime: ["正在安装本地模型运行库…", "Installing the local model runtime…"],
  localProgress: [
    "{received} / {total}，{speed}/s，剩余 {eta}",
    "{received} / {total}, {speed}/s, {eta} left",
  ],
  localStatus: [
    "{model}：{state}，内存 {memory}，{speed} token/s",
    "{model}: {state}, memory {memory}, {speed} tokens/s",
  ],

  connectTitle: ["连接 QQ（NapCat、LLOneBot、Lagrange…）", "Connect QQ (NapCat, LLOneBot, Lagrange…)"],
  connectIntro: [
    "在 NapCat 的 WebUI 里打开「网络配置」，新建一个「WebSocket 客户端」（反向 WS），填入下面的地址和令牌并启用。",
    "In NapCat's WebUI open Network settings, add a WebSocket client (reverse WS), paste the URL and token below and enable it.",
  ],
  connectUrl: ["反向 WebSocket 地址", "Reverse WebSocket URL"],
  connectHttpUrl: ["事件上报（HTTP POST）地址", "Event POST URL"],
  connectForwardUrl: ["我们连接的地址", "URL we connect to"],
  connectToken: ["访问令牌（access token）", "Access token"],
  connectNoToken: ["（未设置，可留空）", "(none, leave empty)"],
  connectAccounts: ["已连接的账号", "Connected accounts"],
  connectWaiting: ["还没有账号连接，正在等待…", "No account connected yet; waiting…"],
  connectOnline: ["在线", "online"],
  connectOffline: ["离线", "offline"],

  pluginsTitle: ["插件", "Plugins"],
  pluginsNone: [
    "没有找到插件。把插件文件夹放进 plugins.dirs 里的目录即可。",
    "No plugins found. Put plugin folders into a folder listed in plugins.dirs.",
  ],
  pluginsNotPersistent: [
    "没有配置文件：这里的改动只在本次运行中生效。",
    "No config file: changes made here last until the bot stops.",
  ],
  stateEnabled: ["已加载", "loaded"],
  stateDisabled: ["已停用", "disabled"],
  stateFailed: ["出错", "errored"],
  pluginEnable: ["启用", "Enable"],
  pluginDisable: ["停用", "Disable"],
  pluginReload: ["重新加载", "Reload"],
  pluginComponents: ["组件", "Components"],
  pluginConfig: ["插件配置", "Plugin config"],
  pluginSaveConfig: ["保存配置", "Save config"],
  pluginConfigSaved: ["配置已生效。", "Config applied."],
  pluginLastError: ["最近的错误", "Last error"],
  pluginLoadedAt: ["加载于", "Loaded at"],
  pluginWidgets: ["插件界面", "Plugin widgets"],
  processRestarts: ["重启次数", "restarts"],
  processNextRetry: ["下次重试", "next retry"],
  processState_starting: ["进程激活中", "process activating"],
  processState_running: ["进程运行中", "process running"],
  processState_errored: ["进程出错", "process errored"],
  processState_restarting: ["进程重启中（激活中）", "process restarting (activating)"],
  processState_failed: ["进程出错，不再重启", "process failed, not restarted"],
  processState_stopped: ["进程已停止", "process stopped"],
  processFailures: ["连续失败", "failures in a row"],
  mcpTitle: ["MCP 服务器", "MCP servers"],
  mcpHint: [
    "在配置的 mcp.servers 里添加服务器；它们的工具在插件页里以 mcp:<id> 开关。",
    "Add servers under mcp.servers in the config; switch their tools on the plugin page, as mcp:<id>.",
  ],
  mcpNone: ["没有配置 MCP 服务器。", "No MCP server is configured."],
  mcpConnected: ["已连接", "connected"],
  mcpConnecting: ["连接中", "connecting"],
  mcpDown: ["断开，稍后重试", "down, retrying"],
  mcpDisabled: ["已停用", "disabled"],
  mcpRestart: ["重启", "Restart"],
  mcpConnectedAt: ["连接于", "connected at"],
  mcpTools: ["工具", "Tools"],
  mcpNoTools: [
    "现在没有可用的工具（服务器未连接，或没有提供工具）。",
    "No tools now (the server is not connected, or offers none).",
  ],
  formRequired: ["必填", "required"],
  formNumber: ["需要一个数字", "must be a number"],
  formInteger: ["需要一个整数", "must be a whole number"],
  formMin: ["不能小于 {n}", "must be at least {n}"],
  formMax: ["不能大于 {n}", "must be at most {n}"],
  formPattern: ["格式不对", "has the wrong format"],
  formJson: ["不是合法的 JSON", "is not valid JSON"],
  formListHint: ["每行一项", "one item per line"],
} satisfies Record<string, [string, string]>;

export type TextKey = keyof typeof TEXT;

/** Every event the bot emits, as the timeline names it; a new event type does not compile without one. */
const EVENT_LABELS: Record<MonitorEventType, [string, string]> = {
  "message.ingested": ["收到消息", "Message received"],
  "access.denied": ["无权使用", "Access denied"],
  "limit.reached": ["达到限额", "Limit reached"],
  "batch.flushed": ["消息成批", "Messages batched"],
  "batch.trimmed": ["消息过多，较早的未放入提示词", "Too many messages: the oldest left out"],
  "turn.started": ["回合开始", "Turn started"],
  "quote.resolved": ["读取引用", "Quote read"],
  "vision.described": ["看懂图片", "Picture described"],
  "vision.failed": ["图片未能看懂", "Picture not described"],
  "vision.skipped": ["图片超出限额，未看", "Pictures over the cap: not described"],
  "sticker.learned": ["收藏表情包", "Sticker kept"],
  "sticker.sent": ["发送表情包", "Sticker sent"],
  "planner.round": ["规划", "Planner round"],
  "tool.called": ["调用工具", "Tool called"],
  "hook.decision": ["钩子决定", "Hook decision"],
  "reply.extension": ["回复扩展", "Reply extension"],
  "replyer.generated": ["写出回复", "Reply written"],
  "transcript.read": ["阅读聊天记录", "Transcript read"],
  "message.sent": ["已发送", "Message sent"],
  "turn.finished": ["回合结束", "Turn finished"],
  "plugin.loaded": ["插件已加载", "Plugin loaded"],
  "plugin.failed": ["插件出错", "Plugin failed"],
  "plugin.process": ["插件进程", "Plugin process"],
  "mcp.server": ["MCP 服务器状态", "MCP server state"],
  "adapter.connection": ["连接变化", "Connection changed"],
  "memory.recalled": ["想起记忆", "Memories recalled"],
  "memory.learned": ["记住 / 修改记忆", "Memory learned or changed"],
  "memory.forgotten": ["忘记", "Memories forgotten"],
};

function initialLang(): Lang {
  const saved = localStorage.getItem(LANG_KEY);
  if (saved === "zh" || saved === "en") return saved;
  return navigator.language.toLowerCase().startsWith("zh") ? "zh" : "en";
}

let lang: Lang = initialLang();

export function currentLang(): Lang {
  return lang;
}

export function setLang(next: Lang): void {
  lang = next;
  localStorage.setItem(LANG_KEY, next);
  document.documentElement.lang = next === "zh" ? "zh-CN" : "en";
}

/** The text for `key` in the current language, with `{name}` placeholders filled. */
export function t(key: TextKey, vars: Record<string, string | number> = {}): string {
  const text = TEXT[key][lang === "zh" ? 0 : 1];
  return text.replace(/\{(\w+)\}/g, (_, name: string) => String(vars[name] ?? ""));
}

/** The timeline's name for an event type; types it does not know (from an older version) show as they are. */
export function eventLabel(type: string): string {
  const label = EVENT_LABELS[type as MonitorEventType] as [string, string] | undefined;
  return label ? label[lang === "zh" ? 0 : 1] : type;
}

export function formatTime(ms: number): string {
  return new Date(ms).toLocaleString(lang === "zh" ? "zh-CN" : "en-GB", { hour12: false });
}
