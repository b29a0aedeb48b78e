// A throwaway OpenID Connect provider for the SSO tests: npm's oidc-provider 8.x (installed by scripts/test in
// FLAPJACK_OIDC_PROVIDER_DIR) with its development login and consent pages, one confidential client and
// three accounts: ada (group admins), olga (group ops), carl (group canteen, mapped to nothing).
// Usage: node oidc_provider.mjs PROVIDER_DIR PORT REDIRECT_URI CLIENT_SECRET
import { pathToFileURL } from 'node:url';

const [dir, port, redirect, secret] = process.argv.slice(2);
const { default: Provider } = await import(pathToFileURL(`${dir}/node_modules/oidc-provider/lib/index.js`).href);
const groups = { ada: ['admins'], olga: ['ops'], carl: ['canteen'] };

const provider = new Provider(`http://127.0.0.1:${port}`, {
  clients: [{
    client_id: 'flapjack', client_secret: secret, redirect_uris: [redirect],
    grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic',
  }],
  claims: { openid: ['sub'], profile: ['preferred_username', 'groups'], email: ['email'] },
  conformIdTokenClaims: false,
  pkce: { required: () => true },
  async findAccount(ctx, id) {
    if (!(id in groups)) return undefined;
    return { accountId: id, async claims() { return { sub: id, preferred_username: id, groups: groups[id] }; } };
  },
});
provider.listen(Number(port), '127.0.0.1', () => console.log('listening'));
