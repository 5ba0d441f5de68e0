"""Markdown table of trnccl-perf JSON reports from emulated runs, one column
group per algorithm: measured and predicted time in modelled microseconds
(host time / scale), and the measured bus bandwidth in modelled GB/s."""
import json
import sys


def main(scale, paths):
    reports = [json.load(open(p)) for p in paths]
    algos = [r["rows"][0]["algorithm"] for r in reports]
    head = "| size |" + "".join(f" {a} measured (us) | model (us) | busbw (GB/s) |" for a in algos)
    print(head)
    print("|---:|" + "---:|---:|---:|" * len(algos))
    for i, row in enumerate(reports[0]["rows"]):
        cells = []
        for r in reports:
            x = r["rows"][i]
            cells.append(f" {x['out_of_place']['time_us'] / scale:.1f} | {x['predicted_us'] / scale:.1f} |"
                         f" {x['out_of_place']['busbw_gbps'] * scale:.0f} |")
        size = row["size_bytes"]
        label = f"{size >> 20} MiB" if size >= 1 << 20 else f"{size >> 10} KiB"
        print(f"| {label} |" + "".join(cells))


if __name__ == "__main__":
    main(float(sys.argv[1]), sys.argv[2:])
