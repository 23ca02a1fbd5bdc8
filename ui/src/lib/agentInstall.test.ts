import { describe, expect, it } from 'vitest';
import { installRequest, parseHosts, type InstallForm } from './agentInstall';

const FORM: InstallForm = {
  hosts: '10.0.1.5\n10.0.1.6, web-3.example:2222',
  port: '22',
  user: 'root',
  auth: 'password',
  privateKey: 'left over from the key tab',
  password: 's3cret',
  jump: '',
  bizId: '2',
  concurrency: '',
  packageVersion: '',
  masters: '',
};

describe('the install form', () => {
  it('reads hosts one per line or comma-separated, with their own port or the form’s', () => {
    expect(parseHosts(' 10.0.1.5 \n\n10.0.1.6,web-3:2222;[fd00::5]:2200 fd00::6', 22)).toEqual({
      hosts: [
        { address: '10.0.1.5', port: 22 },
        { address: '10.0.1.6', port: 22 },
        { address: 'web-3', port: 2222 },
        { address: 'fd00::5', port: 2200 },
        { address: 'fd00::6', port: 22 },
      ],
      errors: [],
    });
    expect(parseHosts('a:0, b:70000', 22).errors).toEqual(['a:0: the port must be 1 to 65535', 'b:70000: the port must be 1 to 65535']);
  });

  it('sends the credential of the chosen kind only, and leaves out what is empty', () => {
    expect(installRequest(FORM)).toEqual({
      body: {
        hosts: [
          { address: '10.0.1.5', port: 22 },
          { address: '10.0.1.6', port: 22 },
          { address: 'web-3.example', port: 2222 },
        ],
        ssh_user: 'root',
        ssh_password: 's3cret',
        bk_biz_id: 2,
      },
      errors: [],
    });
    const key = installRequest({ ...FORM, auth: 'key', privateKey: '-----BEGIN KEY-----', jump: ' ops@bastion:2222 ', concurrency: '10', packageVersion: '0.2.0', masters: 'drover.example:4506, 10.0.0.9:4506' });
    expect(key.body).toMatchObject({ ssh_private_key: '-----BEGIN KEY-----', jump: 'ops@bastion:2222', concurrency: 10, package_version: '0.2.0', masters: ['drover.example:4506', '10.0.0.9:4506'] });
    expect(key.body).not.toHaveProperty('ssh_password');
  });

  it('names what to fix before anything is sent', () => {
    const r = installRequest({ ...FORM, hosts: ' , ', port: 'ssh', user: '', password: '', bizId: '', concurrency: 'many' });
    expect(r.body).toBeNull();
    expect(r.errors.map((e) => e.field)).toEqual(['port', 'hosts', 'ssh_user', 'ssh_password', 'bk_biz_id', 'concurrency']);
  });
});
