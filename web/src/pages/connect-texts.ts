import { currentLang } from "../i18n.ts";

/** The Connect page's texts for QQ's official bot API adapter, kept beside the page. */
const CONNECT_QQ_OFFICIAL_TEXT = {
  webhookUrl: [
    "回调地址：经 HTTPS 反向代理后填入 QQ 机器人开放平台的 webhook 设置",
    "Callback address: behind an HTTPS reverse proxy, enter it in the QQ bot platform's webhook settings",
  ],
  secretHidden: ["AppSecret 已设置（不在此显示）", "AppSecret set (not shown here)"],
  rateLimitedUntil: ["平台限流，暂停发送至", "rate-limited by the platform, sends paused until"],
} satisfies Record<string, [string, string]>;

export function qqOfficialText(key: keyof typeof CONNECT_QQ_OFFICIAL_TEXT): string {
  return CONNECT_QQ_OFFICIAL_TEXT[key][currentLang() === "zh" ? 0 : 1];
}
