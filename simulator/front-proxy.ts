// The answers of a reverse proxy in front of GARM, which are not GARM's JSON error bodies (garm-behaviour.md §1.1, §1.7).

/** "nginx": nginx's default HTML pages; "plain": Go's http.NotFound text, as a Go reverse proxy (e.g. Traefik) answers. */
export type FrontProxy = "nginx" | "plain";

export interface ProxyReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const nginxPage = (status: string) =>
  `<html>\r\n<head><title>${status}</title></head>\r\n<body>\r\n<center><h1>${status}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;

const NGINX_HEADERS = { "Content-Type": "text/html", Server: "nginx" };
const PLAIN_HEADERS = { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" };

/** A path the proxy does not forward (no location for it, or a location GARM has no route for). */
export function proxyNotFound(kind: FrontProxy): ProxyReply {
  return kind === "nginx"
    ? { status: 404, headers: NGINX_HEADERS, body: nginxPage("404 Not Found") }
    : { status: 404, headers: PLAIN_HEADERS, body: "404 page not found\n" };
}

/** GARM behind the proxy is down (restarting): the proxy still accepts the connection. */
export function proxyBadGateway(kind: FrontProxy): ProxyReply {
  return kind === "nginx"
    ? { status: 502, headers: NGINX_HEADERS, body: nginxPage("502 Bad Gateway") }
    : { status: 502, headers: PLAIN_HEADERS, body: "Bad Gateway\n" };
}
