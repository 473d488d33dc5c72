"""The soak's per-minute figures as a PNG: throughput, p50/p99 latency and used_memory, with the
cycle's events marked."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def draw(rows, events, path):
    minutes = [r["minute"] for r in rows]
    fig, (ops, lat, mem) = plt.subplots(3, 1, figsize=(10, 8), sharex=True)
    ops.plot(minutes, [r["ops_per_s"] for r in rows], color="tab:blue")
    ops.set_ylabel("operations/s")
    lat.plot(minutes, [r["p50_ms"] for r in rows], label="p50", color="tab:green")
    lat.plot(minutes, [r["p99_ms"] for r in rows], label="p99", color="tab:red")
    lat.set_ylabel("latency (ms)")
    lat.legend(loc="upper right")
    mem.plot(minutes, [r["used_memory_mb"] for r in rows], color="tab:purple")
    mem.set_ylabel("used_memory (MB)")
    mem.set_xlabel("minute")
    for minute, what, _, _ in events:
        if what.startswith("check"):
            for ax in (ops, lat, mem):
                ax.axvline(minute, color="grey", linewidth=0.5, linestyle=":")
    fig.suptitle("folio soak: mixed load, 16 clients (dotted: FLUSHALL + reload)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
