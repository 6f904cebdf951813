import { signUnsubscribeToken, verifyUnsubscribeToken } from './unsubscribe-token.js';
import { asWorkspaceId } from '../../common/tenant/workspace-id.js';

const claims = {
  workspaceId: asWorkspaceId('0b8f3a52-58c4-4a4b-9f53-2d3c2e0f9a11'),
  contactId: 123456,
  campaignId: 42,
  enrollmentId: 987654321,
};

describe('unsubscribe tokens', () => {
  it('round-trips the claims and is URL-safe', () => {
    const token = signUnsubscribeToken(claims);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(verifyUnsubscribeToken(token)).toEqual(claims);
  });

  it('rejects tampered, truncated, re-signed or malformed tokens', () => {
    const token = signUnsubscribeToken(claims);
    const [payload, tag] = token.split('.');
    const other = signUnsubscribeToken({ ...claims, contactId: 1 });
    expect(verifyUnsubscribeToken(`${other.split('.')[0]}.${tag}`)).toBeNull();
    // The tag's first character: all six of its bits count (the last one carries two that decoding
    // ignores, so replacing the last two with `AA` left the tag unchanged for 1 key in 1,024).
    const tampered = `${tag[0] === 'A' ? 'B' : 'A'}${tag.slice(1)}`;
    expect(verifyUnsubscribeToken(`${payload}.${tampered}`)).toBeNull();
    expect(verifyUnsubscribeToken(payload)).toBeNull();
    expect(verifyUnsubscribeToken('')).toBeNull();
    expect(verifyUnsubscribeToken('a.b.c')).toBeNull();
    expect(verifyUnsubscribeToken(`${'x'.repeat(300)}.${tag}`)).toBeNull();
  });

  it('accepts campaign and enrollment 0 (a manual reply in a thread without them), never contact 0', () => {
    const manual = { ...claims, campaignId: 0, enrollmentId: 0 };
    expect(verifyUnsubscribeToken(signUnsubscribeToken(manual))).toEqual(manual);
    expect(verifyUnsubscribeToken(signUnsubscribeToken({ ...claims, contactId: 0 }))).toBeNull();
  });
});
