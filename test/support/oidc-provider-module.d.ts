// oidc-provider 8 ships no types (and @types/oidc-provider is not installed): the part the test provider uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface KoaContext {
    path: string;
    body: unknown;
  }
  interface Account {
    accountId: string;
    claims(): Record<string, unknown>;
  }
  interface Interaction {
    uid: string;
    prompt: { name: string };
    params: Record<string, unknown>;
    session?: { accountId: string };
  }
  class Grant {
    constructor(options: { accountId: string; clientId: string });
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: {
      clients: Array<Record<string, unknown>>;
      jwks: { keys: unknown[] };
      cookies: { keys: string[] };
      claims: Record<string, string[]>;
      conformIdTokenClaims: boolean;
      features: Record<string, unknown>;
      interactions: { url(ctx: KoaContext, interaction: { uid: string }): string };
      findAccount(ctx: KoaContext, id: string): Account | undefined;
    });
    Grant: typeof Grant;
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
  }
}
