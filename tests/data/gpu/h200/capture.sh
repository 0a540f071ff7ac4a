#!/usr/bin/env bash
# Captures real nvidia-smi output and a collection run on a machine with an NVIDIA GPU, as the
# fixture in this folder (README.md says when, where and on what). Run from the repository root:
#   tests/data/gpu/h200/capture.sh OUTDIR
# It needs nvidia-smi, and python3 with PyTorch for the load (a matrix-product loop, an idle
# pause, a few profiled training steps); without PyTorch the GPU stays idle.
set -u
out=${1:?usage: capture.sh OUTDIR}
work=$(mktemp -d)
mkdir -p "$out" "$work/variants"
log="$out/capture.log"
exec > >(tee -a "$log") 2>&1
set -x
{
  date -u +%Y-%m-%dT%H:%M:%SZ; uname -a; nvidia-smi -L; nvidia-smi --version
  head -3 /etc/os-release 2>/dev/null; python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name(0))'
  command -v dmesg journalctl ps timedatectl || true
} >"$out/info.txt" 2>&1

# Short, standalone captures of the variants the parsers read.
v="$work/variants"
nvidia-smi -q >"$v/nvidia-smi-q-idle.txt" 2>&1
nvidia-smi dmon -c 5 >"$v/dmon-default.txt" 2>&1
nvidia-smi dmon -s pucvmet -o DT -c 5 >"$v/dmon-pucvmet-o-DT.txt" 2>&1
nvidia-smi dmon -s pucvmet -o T -c 3 >"$v/dmon-pucvmet-o-T.txt" 2>&1
nvidia-smi dmon -s e -c 3 >"$v/dmon-s-e.txt" 2>&1
nvidia-smi pmon -c 3 >"$v/pmon-default.txt" 2>&1
nvidia-smi --query-gpu=timestamp,index,name,pci.bus_id,driver_version,pstate,temperature.gpu,utilization.gpu,utilization.memory,memory.used,memory.total,power.draw,power.limit,clocks.sm,clocks.mem,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max --format=csv >"$v/query-gpu-units.csv" 2>&1
nvidia-smi --query-gpu=timestamp,index,name,temperature.gpu,utilization.gpu,power.draw --format=csv,noheader,nounits >"$v/query-gpu-noheader-nounits.csv" 2>&1

# A collection during a small job: busy 40 s, idle 20 s, a few profiled steps, busy 40 s.
scripts/collect-logs.sh --out "$work/collect" --duration 130s --interval 1 --ps-interval 10 &
collector=$!
sleep 10
cat >"$work/load.py" <<'PY'
import os, sys, time
import torch
from torch.profiler import profile, ProfilerActivity
out = sys.argv[1]
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
def busy(seconds):
    t0 = time.time()
    while time.time() - t0 < seconds:
        for _ in range(50):
            c = a @ b
        torch.cuda.synchronize()
busy(40)
time.sleep(20)  # a stalled data loader
model = torch.nn.Sequential(torch.nn.Linear(4096, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 4096)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(256, 4096, device="cuda")
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(5):
        opt.zero_grad()
        model(x).square().mean().backward()
        opt.step()
    torch.cuda.synchronize()
prof.export_chrome_trace(os.path.join(out, "torch-trace.json"))
busy(40)
PY
python3 "$work/load.py" "$work/collect" || echo "capture: no load (python3/PyTorch failed)"
wait "$collector"
echo "collector exit: $?"
nvidia-smi -q >"$v/nvidia-smi-q-after.txt" 2>&1
ls -la "$work/collect" "$v"
tar -C "$work" -czf "$out/collect.tar.gz" collect
tar -C "$work" -czf "$out/variants.tar.gz" variants
