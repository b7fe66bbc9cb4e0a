import type { ComponentChildren } from "preact";
import { navigate } from "./router.ts";

/** An in-app link: a real href (open in a new tab works) that navigates without a reload. */
export function Link({
  href,
  class: className,
  children,
}: {
  href: string;
  class?: string;
  children: ComponentChildren;
}) {
  return (
    <a
      href={href}
      class={className}
      onClick={(event) => {
        if (event.ctrlKey || event.metaKey || event.shiftKey) return;
        event.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}
