#!/usr/bin/env python3
"""The official MLflow Python client on the same data as track-launch's ingest (the spool it wrote).

usage: ingest_py.py URI SPOOL_DIR EXPERIMENT MODE [MAX_POINTS [MAX_STREAMS]]     MODE: batch | async
  batch: MlflowClient.log_batch with full batches (1000 metrics), one run after the other
  async: the fluent API, mlflow.log_metric(..., synchronous=False, run_id=...) per point, then
         mlflow.flush_async_logging()
MAX_POINTS (optional): send only the first MAX_POINTS / streams points of each stream (the async mode
is slow enough that a full 64 x 10,000 run would take hours; its rate is measured on this prefix).
MAX_STREAMS (optional): only the first MAX_STREAMS streams (the async mode's run start and end cost
about a second per run here: with a few points per run, that alone would be measured).
Prints one JSON line: {"mode", "points", "runs", "seconds"}; the clock starts after the data is loaded
and stops when the server acknowledged everything (runs created inside the timed part, as ingest does).
"""
import json
import os
import sys
import time

import mlflow
from mlflow.entities import Metric
from mlflow.tracking import MlflowClient


def load(spool_dir):
    streams = []
    for name in sorted(os.listdir(spool_dir)):
        if not name.endswith(".jsonl"):
            continue
        pts = []
        with open(os.path.join(spool_dir, name)) as f:
            for line in f:
                k, v, step, ms = json.loads(line)
                pts.append((k, float(v), int(step), int(ms)))
        streams.append((name[: -len(".jsonl")], pts))
    return streams


def main():
    uri, spool_dir, experiment, mode = sys.argv[1:5]
    streams = load(spool_dir)
    if len(sys.argv) > 6 and int(sys.argv[6]) > 0:
        streams = streams[: int(sys.argv[6])]
    if len(sys.argv) > 5 and int(sys.argv[5]) > 0:
        per = max(1, int(sys.argv[5]) // len(streams))
        streams = [(name, pts[:per]) for name, pts in streams]
    mlflow.set_tracking_uri(uri)
    client = MlflowClient(uri)
    t0 = time.perf_counter()
    exp = client.create_experiment(experiment)
    n = 0
    if mode == "batch":
        for name, pts in streams:
            run_id = client.create_run(exp, run_name=name).info.run_id
            for i in range(0, len(pts), 1000):
                client.log_batch(run_id, metrics=[Metric(k, v, ms, step) for k, v, step, ms in pts[i : i + 1000]])
            n += len(pts)
    elif mode == "async":
        # the fluent way: an active run per stream (passing run_id= instead costs a runs/get per call)
        mlflow.set_experiment(experiment_id=exp)
        for name, pts in streams:
            with mlflow.start_run(run_name=name):
                for k, v, step, ms in pts:
                    mlflow.log_metric(k, v, step=step, timestamp=ms, synchronous=False)
                n += len(pts)
                mlflow.flush_async_logging()
    else:
        raise SystemExit("mode must be batch or async")
    dt = time.perf_counter() - t0
    print(json.dumps({"mode": mode, "points": n, "runs": len(streams), "seconds": dt}))


if __name__ == "__main__":
    main()
