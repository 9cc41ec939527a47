// yargs reads `--exclusive=maybe` as false without a word. Refuse such values before parsing:
// a switch given a value must be given true or false.
import { invalidOption } from '../core';
import { submitFlags } from './commands/submit-options';

export function checkBooleanFlags(args: string[]): void {
  for (const a of args) {
    if (a === '--') return; // the user's command starts here
    const m = /^--([a-z][a-z-]*)=(.*)$/s.exec(a);
    if (m && BOOLEAN_FLAGS.has(m[1]) && !/^(true|false)$/i.test(m[2])) {
      throw invalidOption(m[1], m[2], 'it is a switch: give it alone, or =true / =false');
    }
  }
}

const BOOLEAN_FLAGS = new Set([
  ...submitFlags()
    .filter(([, decl]) => decl.type === 'boolean')
    .map(([flag]) => flag),
  // The switches of the other commands, and yargs' own.
  'json',
  'offline',
  'report',
  'err',
  'compare',
  'help',
  'version',
]);
