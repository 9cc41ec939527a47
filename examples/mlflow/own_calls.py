"""A script that logs to MLflow itself, beside the lines track-launch parses from its output.

Run it with `track-launch submit --mlflow-env`: every rank then has MLFLOW_TRACKING_URI,
MLFLOW_EXPERIMENT_ID and MLFLOW_RUN_ID (its own rank run of the job), so MLflow's client logs into
the job's run tree instead of a stray run of its own. As the frameworks do, only rank 0 logs here;
its keys differ from the parsed `loss`, so no key holds two series.

    track-launch submit -N 3 --mlflow-env -- python examples/mlflow/own_calls.py --epochs 20

Lightning: MLFlowLogger(run_id=os.environ["MLFLOW_RUN_ID"]) (its tracking_uri defaults to
MLFLOW_TRACKING_URI). Hugging Face's MLflowCallback reads MLFLOW_RUN_ID by itself.
"""
import argparse
import os
import socket
import time

import mlflow


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--sleep", type=float, default=0.2)
    args = ap.parse_args()
    rank, world = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))
    if rank == 0:
        mlflow.log_param("optimizer", "sgd")  # on rank 0's run: track-launch's params are the parent's
    for epoch in range(args.epochs):
        loss = 1.0 / (epoch + 1) + 0.01 * rank
        # parsed by track-launch (the polynomial format): `loss` in this rank's run
        print(f"epoch {epoch}, loss = {loss:.6f}, rank {rank}/{world} ({socket.gethostname()}).", flush=True)
        if rank == 0:
            mlflow.log_metric("script/loss", loss, step=epoch)
        time.sleep(args.sleep)
    # MLflow ends the run (FINISHED) as the process exits; track-launch sets the job's final status later.


if __name__ == "__main__":
    main()
