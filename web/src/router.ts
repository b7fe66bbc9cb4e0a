import { useEffect, useState } from "preact/hooks";

/** A tiny history-API router: the server answers every console path with index.html. */
const listeners = new Set<() => void>();

export function navigate(path: string): void {
  if (path === location.pathname + location.search) return;
  history.pushState(null, "", path);
  for (const listener of listeners) listener();
}

window.addEventListener("popstate", () => {
  for (const listener of listeners) listener();
});

export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    listeners.add(update);
    return () => {
      listeners.delete(update);
    };
  }, []);
  return path;
}

/** A query parameter of the current location (`?id=…`), following in-app navigation. */
export function useQueryParam(name: string): string | null {
  const read = () => new URLSearchParams(location.search).get(name);
  const [value, setValue] = useState(read);
  useEffect(() => {
    const update = () => setValue(read());
    listeners.add(update);
    return () => {
      listeners.delete(update);
    };
  }, [name]);
  return value;
}
