// Where a run's artifacts go through the server's artifact proxy (pure). MLflow gives runs an
// artifact_uri like `mlflow-artifacts:/<exp>/<run>/artifacts` when it serves artifacts.

/** The path under /api/2.0/mlflow-artifacts/artifacts/ for a file in a run, or undefined when the
 *  run's artifacts live elsewhere (file:, s3:, ...), which only the server's proxy can reach. */
export function proxyPath(artifactUri: string, artifactPath: string): string | undefined {
  let root: string | undefined;
  const m = /^mlflow-artifacts:(?:\/\/[^/]*)?\/*(.*)$/.exec(artifactUri);
  if (m) root = m[1];
  const h = /^https?:\/\/[^/]+.*?\/api\/2\.0\/mlflow-artifacts\/artifacts\/+(.*)$/.exec(artifactUri);
  if (!root && h) root = h[1];
  if (root === undefined) return undefined;
  const rel = artifactPath.split('/').filter((s) => s !== '' && s !== '.');
  if (rel.includes('..')) return undefined;
  return [...root.split('/').filter((s) => s !== ''), ...rel].map(encodeURIComponent).join('/');
}
