import type { TenantRepository, TenantScoped } from './tenant.repository.js';
import { asWorkspaceId, type WorkspaceId } from './workspace-id.js';

/** The tenant key of every repository method (its first parameter). */
type TenantKey = Parameters<TenantRepository<TenantScoped>['findOne']>[0];
const tenantKey = (workspaceId: TenantKey): string => workspaceId;

describe('WorkspaceId', () => {
  it('is the tenant key of repositories, and a plain string where one is expected', () => {
    const id = asWorkspaceId('0b8f3a52-58c4-4a4b-9f53-2d3c2e0f9a11');
    const asText: string = id;
    const same: WorkspaceId = id;
    expect(tenantKey(same)).toBe(asText);
  });

  it('is the string it was made from at run time (the brand is only a type)', () => {
    const text = '0b8f3a52-58c4-4a4b-9f53-2d3c2e0f9a11';
    expect(asWorkspaceId(text)).toBe(text);
    expect(typeof asWorkspaceId(text)).toBe('string');
  });

  it('refuses another string where the tenant is expected (checked by tsc --noEmit, npm run check)', () => {
    // @ts-expect-error an email is not a workspace id
    expect(tenantKey('ada@example.com')).toBe('ada@example.com');
  });
});
