// The Discovery options of `submit`: where the master publishes its address, how long ranks wait.
import { quote } from '../shell/quote';
import { text, wholeNumber } from './parse-values';
import { specOption } from './types';

const CIDR_RULE = 'use an IPv4 network such as 10.1.0.0/16';
const group = 'Discovery:';

export const DISCOVERY_OPTIONS = {
  masterIface: specOption({
    type: 'string',
    group,
    help: 'Network interface whose address the master publishes (e.g. ib0)',
    env: true,
    parse: text(/^[A-Za-z0-9_.:@-]{1,15}$/, 'use a network interface name such as ib0 or eth0'),
    bootstrap: {
      flags: ['--master-iface'],
      slot: 7,
      args: (s): string[] => (s.masterIface ? [`--master-iface ${quote(s.masterIface)}`] : []),
    },
  }),
  masterCidr: specOption({
    type: 'string',
    group,
    help: 'Publish the master address inside this IPv4 network (e.g. 10.1.0.0/16)',
    env: true,
    parse: text(/^(\d{1,3}\.){3}\d{1,3}\/\d{1,2}$/, CIDR_RULE, validCidr),
    bootstrap: {
      flags: ['--master-cidr'],
      slot: 8,
      args: (s): string[] => (s.masterCidr ? [`--master-cidr ${quote(s.masterCidr)}`] : []),
    },
  }),
  rendezvousTimeout: specOption({
    type: 'string',
    group,
    help: 'Seconds ranks wait for the master address (default 120)',
    env: true,
    parse: wholeNumber(1, 86400, 120),
    bootstrap: { flags: ['--timeout'], slot: 1, args: (s): string[] => [`--timeout ${s.rendezvousTimeout}`] },
  }),
};

function validCidr(c: string): boolean {
  const [ip, bits] = c.split('/');
  return ip.split('.').every((o) => Number(o) <= 255) && Number(bits) <= 32;
}
