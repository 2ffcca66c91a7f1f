import { useEffect, useState } from "preact/hooks";

/** Where the app is served; the API answers index.html for every path under it. */
export const base = "/dashboard";

/** The app's path, without the base: "/", "/keys", "/sign-in". */
export function currentPath(): string {
  const path = location.pathname.startsWith(base) ? location.pathname.slice(base.length) : location.pathname;
  return path === "" ? "/" : path.replace(/\/+$/, "") || "/";
}

const listeners = new Set<() => void>();

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  const url = `${base}${path === "/" ? "/" : path}`;
  if (options.replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  for (const listener of listeners) listener();
}

/** The current path, updated on navigation and on the browser's back and forward. */
export function usePath(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const update = () => setPath(currentPath());
    listeners.add(update);
    addEventListener("popstate", update);
    return () => {
      listeners.delete(update);
      removeEventListener("popstate", update);
    };
  }, []);
  return path;
}

/** Handles a click on an in-app link without reloading the page (modifier clicks open a tab as usual). */
export function onLinkClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
    return;
  const anchor = (event.target as Element | null)?.closest("a");
  const href = anchor?.getAttribute("href");
  if (!anchor || !href?.startsWith(`${base}/`) || anchor.target) return;
  event.preventDefault();
  navigate(href.slice(base.length) || "/");
}
