# Reads a job's runs back with the official client (mlflow.MlflowClient) and prints them as JSON.
# Usage: python readback.py <tracking-uri> <experiment-id> <job-key>
import json
import sys

import mlflow
from mlflow import MlflowClient

uri, experiment_id, job_key = sys.argv[1:4]
# MLflow 2's client resolves mlflow-artifacts: URIs against the global tracking URI, not the client's.
mlflow.set_tracking_uri(uri)
client = MlflowClient(tracking_uri=uri)
out = []
for run in client.search_runs([experiment_id], filter_string=f"tags.`track_launch.job_key` = '{job_key}'"):
    rid = run.info.run_id
    out.append({
        "run_id": rid,
        "run_name": run.info.run_name,
        "status": run.info.status,
        "end_time": run.info.end_time,
        "tags": run.data.tags,
        "params": run.data.params,
        "history": {k: [[m.step, m.value, m.timestamp] for m in client.get_metric_history(rid, k)] for k in run.data.metrics},
        "artifacts": sorted(f.path for d in ["", "logs"] for f in client.list_artifacts(rid, d or None) if not f.is_dir),
    })
print(json.dumps(out))
