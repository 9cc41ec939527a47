// track-launch completion: yargs' own completion script (bash; zsh when run from zsh).
export const COMPLETION_COMMAND = 'completion';

export const COMPLETION_DESCRIBE =
  'Print a shell completion script: bash (`source <(track-launch completion)`), or zsh when run from zsh (or with SHELL=zsh)';
