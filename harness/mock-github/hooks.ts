// Repository and organization webhooks as GitHub's REST API serves them to GARM's webhook management
// (runner/pool/util.go L170-190 lists them, pool.go L2245-2269 creates and pings, L2204-2243 deletes; go-github's
// Repositories/Organizations ListHooks, CreateHook, PingHook, DeleteHook).

export interface MockHook {
    id: number;
    /** "orgs/acme" or "repos/acme/app" */
    owner: string;
    url: string;
    contentType: string;
    insecureSsl: string;
    /** Kept to let tests see which secret GitHub signs with; GitHub never sends it back. */
    secret: string;
    events: string[];
    active: boolean;
}

export type HookOp = "listHooks" | "createHook" | "pingHook" | "deleteHook";

interface HookReply {
    op: HookOp;
    reply: { status: number; body?: unknown };
}

/** The hooks of any organization or repository: GARM may manage entities the rest of the mock does not model. */
export class MockHooks {
    readonly hooks = new Map<number, MockHook>();
    private nextId = 7001;

    /** Answers a REST call under /api/v3 whose segments are `seg`, or undefined when it is not a hooks call. */
    handle(method: string, seg: string[], body: unknown): HookReply | undefined {
        const at = seg[0] === "orgs" ? 2 : seg[0] === "repos" ? 3 : -1;
        if (at < 0 || seg[at] !== "hooks") return undefined;
        const owner = seg.slice(0, at).join("/");
        const id = seg[at + 1] === undefined ? undefined : Number(seg[at + 1]);
        if (id === undefined && method === "GET") {
            return { op: "listHooks", reply: { status: 200, body: [...this.hooks.values()].filter((h) => h.owner === owner).map(view) } };
        }
        if (id === undefined && method === "POST") {
            const b = (body ?? {}) as { active?: boolean; events?: string[]; config?: Record<string, string> };
            const url = b.config?.url ?? "";
            if (!url) return { op: "createHook", reply: { status: 422, body: { message: "Validation Failed", errors: [{ field: "url", code: "missing" }] } } };
            if ([...this.hooks.values()].some((h) => h.owner === owner && h.url === url)) {
                return { op: "createHook", reply: { status: 422, body: { message: "Validation Failed", errors: [{ message: "Hook already exists on this repository" }] } } };
            }
            const hook: MockHook = {
                id: this.nextId++,
                owner,
                url,
                contentType: b.config?.content_type ?? "form",
                insecureSsl: b.config?.insecure_ssl ?? "0",
                secret: b.config?.secret ?? "",
                events: b.events ?? ["push"],
                active: b.active ?? true,
            };
            this.hooks.set(hook.id, hook);
            return { op: "createHook", reply: { status: 201, body: view(hook) } };
        }
        const hook = id === undefined ? undefined : this.hooks.get(id);
        const missing = { status: 404, body: { message: "Not Found", documentation_url: "https://docs.github.com/rest" } };
        if (seg[at + 2] === "pings" && method === "POST") return { op: "pingHook", reply: hook && hook.owner === owner ? { status: 204 } : missing };
        if (seg.length === at + 2 && method === "DELETE") {
            if (!hook || hook.owner !== owner) return { op: "deleteHook", reply: missing };
            this.hooks.delete(hook.id);
            return { op: "deleteHook", reply: { status: 204 } };
        }
        return undefined;
    }

    /** The hooks of "orgs/<org>" or "repos/<owner>/<name>". */
    of(owner: string): MockHook[] {
        return [...this.hooks.values()].filter((h) => h.owner === owner);
    }
}

/** GitHub shows a hook's secret as asterisks (REST "repos/hooks" docs); GARM reads url, insecure_ssl, events, active. */
function view(h: MockHook) {
    return {
        type: "Repository",
        id: h.id,
        name: "web",
        active: h.active,
        events: h.events,
        config: { url: h.url, content_type: h.contentType, insecure_ssl: h.insecureSsl, ...(h.secret ? { secret: "********" } : {}) },
    };
}
