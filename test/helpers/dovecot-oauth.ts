/**
 * A throwaway Dovecot IMAP server that accepts only SASL XOAUTH2 / OAUTHBEARER, checking each access
 * token at an OAuth 2.0 introspection endpoint (Dovecot's oauth2 passdb), as Gmail and Outlook do.
 * Any address may sign in with a token the introspection answers active for it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/config/embedded.js';

export interface OAuthDovecot {
  port: number;
  stop(): Promise<void>;
}

export async function startOAuthDovecot(introspectionUrl: string): Promise<OAuthDovecot> {
  const dir = mkdtempSync(join(tmpdir(), 'dovecot-oauth-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const nobody = spawnSync('id', ['-u', 'nobody']).stdout.toString().trim() || '65534';
  const nogroup = spawnSync('id', ['-g', 'nobody']).stdout.toString().trim() || '65534';
  const mailDir = join(dir, 'mail');
  mkdirSync(mailDir, { recursive: true });
  mkdirSync(join(dir, 'run'), { recursive: true });
  mkdirSync(join(dir, 'state'), { recursive: true });
  chownSync(mailDir, Number(nobody), Number(nogroup));
  const loginUser = spawnSync('id', ['-u', 'dovenull']).status === 0 ? 'dovenull' : 'nobody';
  const internalUser = spawnSync('id', ['-u', 'dovecot']).status === 0 ? 'dovecot' : 'nobody';
  writeFileSync(
    join(dir, 'oauth2.conf.ext'),
    `introspection_mode = post
introspection_url = ${introspectionUrl}
force_introspection = yes
username_attribute = email
active_attribute = active
active_value = true
`,
  );
  const conf = join(dir, 'dovecot.conf');
  writeFileSync(
    conf,
    `
base_dir = ${dir}/run
state_dir = ${dir}/state
instance_name = dovecot-oauth-${port}
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = xoauth2 oauthbearer
log_path = ${dir}/dovecot.log
info_log_path = ${dir}/dovecot.log
default_login_user = ${loginUser}
default_internal_user = ${internalUser}
first_valid_uid = 1
mail_location = maildir:${mailDir}/%u
passdb {
  driver = oauth2
  mechanisms = xoauth2 oauthbearer
  args = ${dir}/oauth2.conf.ext
}
userdb {
  driver = static
  args = uid=${nobody} gid=${nogroup} home=${mailDir}/%u
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
  chroot =
}
service anvil {
  chroot =
}
service stats {
  unix_listener stats-writer {
    mode = 0666
  }
}
`,
  );
  const proc: ChildProcess = spawn('/usr/sbin/dovecot', ['-F', '-c', conf], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (proc.exitCode !== null) {
      const log = existsSync(join(dir, 'dovecot.log')) ? readFileSync(join(dir, 'dovecot.log'), 'utf8') : '';
      throw new Error(`dovecot exited: ${output}\n${log}`);
    }
    const up = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('data', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline) throw new Error(`dovecot did not come up: ${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    stop: async () => {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
        if (proc.exitCode === null) proc.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
