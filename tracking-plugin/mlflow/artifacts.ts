// Where a run's artifacts go (pure): through the server's artifact proxy, or into a directory. MLflow gives runs an
// artifact_uri like `mlflow-artifacts:/<exp>/<run>/artifacts` when it serves artifacts, and a
// local path (file:/shared/mlruns/<exp>/<run>/artifacts) when it keeps them in a directory.
import * as path from 'path';
import { fileURLToPath } from 'url';

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

/** The directory a run's artifacts are kept in when its artifact_uri is a local path (`file:` on
 *  this host, or a plain absolute path, as MLflow's --default-artifact-root /shared/mlruns gives);
 *  undefined for any other store (s3:, gs:, a file: URI on another host, a relative path). */
export function localArtifactDir(artifactUri: string): string | undefined {
  if (artifactUri.startsWith('/')) return path.posix.normalize(artifactUri);
  if (!/^file:\//i.test(artifactUri)) return undefined;
  try {
    return path.posix.normalize(fileURLToPath(artifactUri));
  } catch {
    return undefined; // another host, or not a file URL: MLflow's client could not write there either
  }
}

/** `s3:` for s3://bucket/x; the whole URI when it has no scheme. */
export const storeScheme = (artifactUri: string): string =>
  /^[a-z][a-z0-9+.-]*:/i.exec(artifactUri)?.[0] ?? artifactUri;
