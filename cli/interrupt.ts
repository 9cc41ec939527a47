/** Calls `first` on the first Ctrl-C and exits 130 on the second, until `dispose()`. */
export function onCtrlC(first: () => void): { dispose(): void } {
  let seen = false;
  const onInt = () => {
    if (seen) process.exit(130);
    seen = true;
    first();
  };
  process.on('SIGINT', onInt);
  return { dispose: () => process.off('SIGINT', onInt) };
}
