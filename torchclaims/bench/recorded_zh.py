"""The Chinese of what the benchmarks record in English and the report shows: each row's quantity,
scale, method, note and unit word, and the cells of a benchmark's own summary table, keyed by the
English text (``phrases.recorded`` looks them up for the Chinese report; tests/bench/test_bench_zh.py
checks that every text of the committed results files is here).

A ``{name}`` in a key stands for one measured figure (a median, a byte count, a round count, a
mode such as ``max-autotune``): any run of non-blank characters there matches, and the translation
repeats it where its own ``{name}`` stands, so a rerun's new figures keep their Chinese. API names,
numbers, units, code, paths and model names stay as they are.
"""
RECORDED = {
    # units and single words
    "ratio": "比值",
    "images/s": "张/秒",
    "eager": "eager",
    "compile default": "编译 default",
    "compile max-autotune": "编译 max-autotune",
    "not measured": "未测得",
    "torchvision.models.resnet50": "torchvision.models.resnet50",

    # bench_autograd.py
    "resident memory saved by no_grad, batch {batch}": "no_grad 节省的常驻内存，批大小 {batch}",
    "the material gives no sizes; MLP 1024-4096(ReLU)-10, float32, batches 256 and 4096":
        "资料没给规模；MLP 1024-4096(ReLU)-10，float32，批大小 256 和 4096",
    ("distinct storages of parameters, input, output, loss and saved_tensors_hooks captures after forward+loss, "
     "grad vs no_grad ({grad} B vs {no_grad} B)"):
        "前向+loss 之后，参数、输入、输出、loss 和 saved_tensors_hooks 捕获的张量按不同存储计，grad 对 no_grad（{grad} B 对 {no_grad} B）",
    "peak memory saved by ReLU(inplace=True)": "ReLU(inplace=True) 节省的峰值内存",
    "the material gives no model; Linear 1024-1024-ReLU-1024-ReLU-10, float32, batch 4096":
        "资料没给模型；Linear 1024-1024-ReLU-1024-ReLU-10，float32，批大小 4096",
    ("peak RSS growth (VmHWM after clear_refs) over one forward+backward, {rounds} interleaved rounds in one "
     "subprocess (1 thread, fixed glibc mmap threshold); medians {plain} kB with ReLU(), {inplace} kB with "
     "ReLU(inplace=True)"):
        ("一次前向+反向期间的峰值 RSS 增长（clear_refs 之后的 VmHWM），在一个子进程中交错 {rounds} 轮（1 个线程，"
         "固定的 glibc mmap 阈值）；中位数：ReLU() {plain} kB，ReLU(inplace=True) {inplace} kB"),
    "saved-tensor bytes removed by checkpoint": "checkpoint 省掉的已保存张量字节数",
    ("saved_tensors_hooks captures outside the checkpoint (use_reentrant=False), distinct storages, "
     "{plain} B plain vs {checkpointed} B checkpointed"):
        ("checkpoint 之外 saved_tensors_hooks 捕获的张量（use_reentrant=False），按不同存储计："
         "不做 checkpoint {plain} B，做 checkpoint {checkpointed} B"),
    "the material names no model; 4 x (Linear 512 + Tanh), float32, batch 256, whole block checkpointed":
        "资料没指明模型；4 x (Linear 512 + Tanh)，float32，批大小 256，整块做 checkpoint",
    "extra forward+backward time with checkpoint": "做 checkpoint 后前向+反向多花的时间",
    "torch.utils.benchmark.Timer, 1 thread, {rounds} interleaved rounds; medians {plain} ms plain, {checkpointed} ms checkpointed":
        "torch.utils.benchmark.Timer，1 个线程，交错 {rounds} 轮；中位数：不做 checkpoint {plain} ms，做 checkpoint {checkpointed} ms",
    "forward time with graph / under no_grad": "前向时间：记录计算图 / no_grad 下",
    "torch.utils.benchmark.Timer, 1 thread, {rounds} interleaved rounds; medians {graph} us recorded, {no_grad} us under no_grad":
        "torch.utils.benchmark.Timer，1 个线程，交错 {rounds} 轮；中位数：记录计算图 {graph} us，no_grad 下 {no_grad} us",
    "the material gives no size; MLP 64-64-64-10 with Tanh, batch 32": "资料没给规模；MLP 64-64-64-10，激活函数 Tanh，批大小 32",

    # bench_compile.py on the CPU
    "{model} forward: eager/compiled time (speed-up), mode={mode}": "{model} 前向：eager/编译后的时间（加速比），mode={mode}",
    "{model} train: eager/compiled time (speed-up), mode={mode}": "{model} 训练：eager/编译后的时间（加速比），mode={mode}",
    "{model} forward: cold compile latency, mode={mode}": "{model} 前向：冷编译延迟，mode={mode}",
    "{model} train: cold compile latency, mode={mode}": "{model} 训练：冷编译延迟，mode={mode}",
    ("{rounds} interleaved rounds of 3 calls, torch.utils.benchmark.Timer; accuracy checked first; "
     "the material's figure is its images/s ratio to eager"):
        "交错 {rounds} 轮，每轮 3 次调用，torch.utils.benchmark.Timer；先核对了精度；资料的数字是它相对 eager 的 images/s 之比",
    ("not the material's model: {model}, forward, batch 8, 32x32, fp32, CPU 2 threads "
     "(the material: ResNet-50 on an A100, batch unstated)"):
        "不是资料的模型：{model}，前向，批大小 8，32x32，fp32，CPU 2 个线程（资料：A100 上的 ResNet-50，没说批大小）",
    ("not the material's model: {model}, train, batch 8, 32x32, fp32, CPU 2 threads "
     "(the material: ResNet-50 on an A100, batch unstated)"):
        "不是资料的模型：{model}，训练，批大小 8，32x32，fp32，CPU 2 个线程（资料：A100 上的 ResNet-50，没说批大小）",
    "first call in a fresh Inductor cache minus one steady-state call (one cold compile); warm {warm} s":
        "在全新的 Inductor 缓存中首次调用的时间减去一次稳态调用的时间（一次冷编译）；热编译 {warm} s",
    "eager/compiled forward time (6 tiny layers, 4x32 input)": "前向时间 eager/编译后（6 个很小的层，输入 4x32）",
    "torch.compile default vs eager, {rounds} interleaved rounds of 3 calls, 2 threads; accuracy checked first":
        "torch.compile default 对 eager，交错 {rounds} 轮，每轮 3 次调用，2 个线程；先核对了精度",
    "the material gives no model; an overhead-bound MLP, 6 layers of 32, batch 4":
        "资料没给模型；一个受调用开销限制的 MLP，6 层，每层 32，批大小 4",
    "ResNet-50 eager first-call overhead": "ResNet-50 eager 首次调用的额外开销",
    "first eager call minus the median steady-state call, in a fresh process (one first call)":
        "在全新进程中，首次 eager 调用的时间减去稳态调用时间的中位数（只有一次首次调用）",
    ("the material's model at a small batch on this CPU: torchvision resnet50, random weights, inference, batch 4, "
     "224x224, fp32, 2 threads (the material: an A100, batch unstated)"):
        ("资料的模型，在本机 CPU 上用小批量：torchvision resnet50，随机权重，推理，批大小 4，224x224，fp32，"
         "2 个线程（资料：A100，没说批大小）"),
    "ResNet-50 eager/compiled time (speed-up), mode={mode}": "ResNet-50 eager/编译后的时间（加速比），mode={mode}",
    ("a fresh subprocess per mode (compile_worker.py), {rounds} interleaved rounds of one call, "
     "torch.utils.benchmark.Timer; output checked against eager first; medians eager {eager} ms, {mode} {compiled} ms "
     "a call; the material's figure is its images/s ratio"):
        ("每种模式一个全新的子进程（compile_worker.py），交错 {rounds} 轮，每轮一次调用，torch.utils.benchmark.Timer；"
         "先核对了输出与 eager 一致；每次调用的中位数：eager {eager} ms，{mode} {compiled} ms；资料的数字是它的 images/s 之比"),
    "ResNet-50 cold compile latency, mode={mode}": "ResNet-50 冷编译延迟，mode={mode}",
    ("first call in a fresh process and Inductor cache minus one steady-state call (one cold compile); "
     "warm (after a Dynamo reset, caches filled) {warm} s; Inductor's own start-up {start} s, apart"):
        ("在全新进程和全新 Inductor 缓存中首次调用的时间减去一次稳态调用的时间（一次冷编译）；"
         "热编译（Dynamo 重置之后，缓存已填好）{warm} s；Inductor 自身的启动 {start} s，另计"),
    "ResNet-50 peak memory of one forward, compiled ({mode}) / eager": "ResNet-50 一次前向的峰值内存，编译后（{mode}）/ eager",
    ("peak RSS growth over one forward (VmHWM after clear_refs, fixed glibc mmap threshold), {rounds} rounds a side; "
     "medians eager {eager} MB, {mode} {compiled} MB; the material's figure is its GB ratio"):
        ("一次前向期间的峰值 RSS 增长（clear_refs 之后的 VmHWM，固定的 glibc mmap 阈值），每方 {rounds} 轮；"
         "中位数：eager {eager} MB，{mode} {compiled} MB；资料的数字是它的 GB 之比"),
    # its summary table
    "ResNet-50 on this CPU: the counterpart of the material's A100 table (000 §5.3), context only":
        "本机 CPU 上的 ResNet-50：资料 A100 表格（000 §5.3）的对应版本，只作参照",
    ("Scale: the material's model at a small batch on this CPU: torchvision resnet50, random weights, inference, "
     "batch 4, 224x224, fp32, 2 threads (the material: an A100, batch unstated). Intervals and rounds of each figure "
     "are in the rows below. Training (forward+backward) is not compiled here: a cold ResNet-50 training compile "
     "takes many minutes on 2 cores; the gpu-marked benchmark measures it."):
        ("规模：资料的模型，在本机 CPU 上用小批量：torchvision resnet50，随机权重，推理，批大小 4，224x224，fp32，"
         "2 个线程（资料：A100，没说批大小）。每个数字的区间和轮数见下面各行。这里不编译训练（前向+反向）："
         "在 2 个核心上冷编译 ResNet-50 的训练要好几分钟；标有 gpu 的基准测试会测它。"),
    "speed-up over eager here (ratio of medians, same process)": "本机相对 eager 的加速比（中位数之比，同一进程）",
    "the material's speed-up on an A100 (images/s ratio)": "资料在 A100 上的加速比（images/s 之比）",
    "median time a call here, compiled (ms)": "本机每次调用的中位时间，编译后（ms）",
    "median time a call here, eager in the same process (ms)": "本机每次调用的中位时间，同一进程中的 eager（ms）",
    "cold start-up here (s): first call minus a steady call": "本机的冷启动（s）：首次调用减去一次稳态调用",
    "warm compile here (s): after a Dynamo reset, caches filled": "本机的热编译（s）：Dynamo 重置之后，缓存已填好",
    "the material's start-up on an A100 (s)": "资料在 A100 上的启动延迟（s）",
    "peak memory of one forward here (MB, RSS growth)": "本机一次前向的峰值内存（MB，RSS 增长）",
    "the material's memory on an A100 (GB)": "资料在 A100 上的显存（GB）",

    # bench_compile.py on a GPU
    "ResNet-50 eager images/s": "ResNet-50 eager 的吞吐量（张/秒）",
    ("a fresh subprocess per mode (compile_worker.py --device cuda), {rounds} interleaved rounds of one synchronised "
     "call, torch.utils.benchmark.Timer; output checked against eager first"):
        ("每种模式一个全新的子进程（compile_worker.py --device cuda），交错 {rounds} 轮，每轮一次同步调用，"
         "torch.utils.benchmark.Timer；先核对了输出与 eager 一致"),
    ("assumed (the material states none): ResNet-50 (torchvision's architecture), random weights, inference, "
     "batch 64, 224x224, fp32, NVIDIA H200 (the material: an A100)"):
        "假定的规模（资料没有说明）：ResNet-50（torchvision 的结构），随机权重，推理，批大小 64，224x224，fp32，NVIDIA H200（资料：A100）",
    "was stopped after {bound} s (the bound)": "在 {bound} s 后被停止（时间上限）",
    "ResNet-50 eager peak allocated memory of one forward": "ResNet-50 eager 一次前向分配的峰值显存",
    "torch.cuda.max_memory_allocated over one synchronised forward, before anything was compiled":
        "一次同步前向期间的 torch.cuda.max_memory_allocated，在编译任何东西之前",
    "ResNet-50 eager/compiled forward time (speed-up), mode={mode}": "ResNet-50 前向时间 eager/编译后（加速比），mode={mode}",
    ("a fresh subprocess per mode (compile_worker.py --device cuda), {rounds} interleaved rounds of one synchronised "
     "call, torch.utils.benchmark.Timer; output checked against eager first; medians eager {eager} ms, {mode} "
     "{compiled} ms a call; the material's figure is its images/s ratio"):
        ("每种模式一个全新的子进程（compile_worker.py --device cuda），交错 {rounds} 轮，每轮一次同步调用，"
         "torch.utils.benchmark.Timer；先核对了输出与 eager 一致；每次调用的中位数：eager {eager} ms，{mode} {compiled} ms；"
         "资料的数字是它的 images/s 之比"),
    "ResNet-50 images/s, mode={mode}": "ResNet-50 的吞吐量（张/秒），mode={mode}",
    "ResNet-50 peak allocated memory of one forward, compiled ({mode}) / eager":
        "ResNet-50 一次前向分配的峰值显存，编译后（{mode}）/ eager",
    ("torch.cuda.max_memory_allocated over one synchronised forward, {rounds} rounds a side (eager before anything "
     "was compiled); medians eager {eager} GB, {mode} {compiled} GB; the material's figure is its GB ratio"):
        ("一次同步前向期间的 torch.cuda.max_memory_allocated，每方 {rounds} 轮（eager 在编译任何东西之前测）；"
         "中位数：eager {eager} GB，{mode} {compiled} GB；资料的数字是它的 GB 之比"),
    "ResNet-50 peak allocated memory of one forward, mode={mode}": "ResNet-50 一次前向分配的峰值显存，mode={mode}",
    "torch.cuda.max_memory_allocated over one forward": "一次前向期间的 torch.cuda.max_memory_allocated",
    ("first call in a fresh process and Inductor/Triton cache minus one steady-state call (one cold compile); "
     "Inductor's own start-up {start} s, apart"):
        "在全新进程和全新 Inductor/Triton 缓存中首次调用的时间减去一次稳态调用的时间（一次冷编译）；Inductor 自身的启动 {start} s，另计",
    "not measured: the max-autotune compile was stopped after {bound} s (the bound)":
        "未测得：max-autotune 编译在 {bound} s 后被停止（时间上限）",
    # its summary table
    "ResNet-50 on the NVIDIA H200: the material's A100 table (000 §5.3)": "NVIDIA H200 上的 ResNet-50：资料的 A100 表格（000 §5.3）",
    ("Scale: assumed (the material states none): ResNet-50 (torchvision's architecture), random weights, inference, "
     "batch 64, 224x224, fp32, NVIDIA H200 (the material: an A100). Intervals, rounds and verdicts of each figure are "
     "in the rows below. Inference only and one cold compile per mode, to fit the GPU run's budget."):
        ("规模：假定的规模（资料没有说明）：ResNet-50（torchvision 的结构），随机权重，推理，批大小 64，224x224，fp32，"
         "NVIDIA H200（资料：A100）。每个数字的区间、轮数和结论见下面各行。只测推理，每种模式只冷编译一次，"
         "以符合 GPU 运行的时间预算。"),
    "speed-up over eager on the NVIDIA H200 (ratio of medians, same process)":
        "NVIDIA H200 上相对 eager 的加速比（中位数之比，同一进程）",
    "not measured: was stopped after {bound} s (the bound)": "未测得：在 {bound} s 后被停止（时间上限）",
    "median time a call on the NVIDIA H200, compiled (ms)": "NVIDIA H200 上每次调用的中位时间，编译后（ms）",
    "median time a call on the NVIDIA H200, eager in the same process (ms)":
        "NVIDIA H200 上每次调用的中位时间，同一进程中的 eager（ms）",
    "cold start-up on the NVIDIA H200 (s): first call minus a steady call": "NVIDIA H200 上的冷启动（s）：首次调用减去一次稳态调用",
    "warm compile on the NVIDIA H200 (s): after a Dynamo reset, caches filled":
        "NVIDIA H200 上的热编译（s）：Dynamo 重置之后，缓存已填好",
    "peak allocated memory of one forward on the NVIDIA H200 (GB)": "NVIDIA H200 上一次前向分配的峰值显存（GB）",

    # bench_data.py
    "costly samples: epoch time {fewer} workers / {more} workers": "耗时的样本：每个 epoch 的时间，{fewer} 个 worker / {more} 个 worker",
    "cheap samples: epoch time {fewer} workers / {more} workers": "不耗时的样本：每个 epoch 的时间，{fewer} 个 worker / {more} 个 worker",
    ("epoch time (worker start-up included), {rounds} interleaved epochs; medians 0 workers {w0} ms, "
     "2 workers {w2} ms, 4 workers {w4} ms"):
        "每个 epoch 的时间（含 worker 启动），交错 {rounds} 个 epoch；中位数：0 个 worker {w0} ms，2 个 worker {w2} ms，4 个 worker {w4} ms",
    "epoch time, {rounds} interleaved epochs; medians 0 workers {w0} ms, 2 workers {w2} ms":
        "每个 epoch 的时间，交错 {rounds} 个 epoch；中位数：0 个 worker {w0} ms，2 个 worker {w2} ms",
    ("the material's dataset, model and machine are not stated; 128 synthetic 3x32x32 samples costing 2 ms of CPU "
     "each, a consumer waiting 16 ms a batch (a GPU step), 2 CPUs"):
        "资料没说数据集、模型和机器；128 个合成的 3x32x32 样本，每个耗 2 ms CPU 时间，消费方每批等待 16 ms（相当于一步 GPU 计算），2 个 CPU",
    ("the material's dataset, model and machine are not stated; 128 synthetic 3x32x32 samples costing nothing, "
     "a consumer waiting 16 ms a batch (a GPU step), 2 CPUs"):
        "资料没说数据集、模型和机器；128 个合成的 3x32x32 样本，取样本不耗时，消费方每批等待 16 ms（相当于一步 GPU 计算），2 个 CPU",
    "the material's 22% more throughput for 2 workers, as a ratio 1.22": "资料说 2 个 worker 吞吐量提高 22%，换成比值是 1.22",
    "epoch time prefetch_factor 1 / 2 (2 workers)": "每个 epoch 的时间，prefetch_factor 1 / 2（2 个 worker）",
    ("epoch time, {rounds} interleaved epochs; medians prefetch_factor 1 {p1} ms, prefetch_factor 2 {p2} ms, "
     "prefetch_factor 4 {p4} ms"):
        ("每个 epoch 的时间，交错 {rounds} 个 epoch；中位数：prefetch_factor 1 {p1} ms，prefetch_factor 2 {p2} ms，"
         "prefetch_factor 4 {p4} ms"),
    "resident memory saved by a memmap Dataset reading one batch of 32, against loading the file":
        "memmap Dataset 读一批 32 个样本、与整个载入文件相比节省的常驻内存",
    "resident memory of a memmap Dataset after one epoch (every sample read once)":
        "memmap Dataset 跑完一个 epoch 后的常驻内存（每个样本读一次）",
    ("peak resident memory growth (VmHWM after clear_refs minus VmRSS before) of a fresh Python subprocess, "
     "{rounds} interleaved rounds; medians: eager np.fromfile {eager} MB, memmap + one batch of 32 {batch} MB, "
     "memmap epoch {epoch} MB"):
        ("全新 Python 子进程的峰值常驻内存增长（clear_refs 之后的 VmHWM 减去之前的 VmRSS），交错 {rounds} 轮；"
         "中位数：eager np.fromfile {eager} MB，memmap 加一批 32 个样本 {batch} MB，memmap 跑完一个 epoch {epoch} MB"),
    ("peak resident memory growth (VmHWM after clear_refs minus VmRSS before) of a fresh Python subprocess, "
     "{rounds} interleaved rounds; medians: eager np.fromfile {eager} MB, memmap + one batch of 32 {batch} MB, "
     "memmap epoch {epoch} MB; of the epoch's, anonymous {anonymous} MB and file-backed {file} MB: clean page cache "
     "the kernel can reclaim, unlike an eager load"):
        ("全新 Python 子进程的峰值常驻内存增长（clear_refs 之后的 VmHWM 减去之前的 VmRSS），交错 {rounds} 轮；"
         "中位数：eager np.fromfile {eager} MB，memmap 加一批 32 个样本 {batch} MB，memmap 跑完一个 epoch {epoch} MB；"
         "其中匿名内存 {anonymous} MB，文件映射 {file} MB：后者是内核可以回收的干净页缓存，这一点与 eager 载入不同"),
    ("the material's total: 1000 images of 3x640x640 uint8, a 1,229 MB file "
     "(the 32x32 images it names would total 3 MB)"):
        "按资料的总量：1000 张 3x640x640 uint8 图像，文件 1,229 MB（资料提到的 32x32 图像总共只有 3 MB）",
    "the material's 1.2 GB -> 20 MB is a saving of 98.3%": "资料的 1.2 GB -> 20 MB 相当于节省 98.3%",

    # bench_devices.py, bench_numerics.py (GPU)
    "pageable/pinned host-to-device copy time": "主机到设备的拷贝时间：可分页内存 / 锁页内存",
    ("torch.utils.benchmark.Timer, {rounds} interleaved rounds, synchronised; medians pageable .to('cuda') "
     "{pageable} ms, pinned .to('cuda', non_blocking=True) {pinned} ms, NVIDIA H200"):
        ("torch.utils.benchmark.Timer，交错 {rounds} 轮，已同步；中位数：可分页内存 .to('cuda') {pageable} ms，"
         "锁页内存 .to('cuda', non_blocking=True) {pinned} ms，NVIDIA H200"),
    "the material gives no size; 64 MiB of float32": "资料没给规模；64 MiB 的 float32",
    "the material gives no figure, only that pinning is faster": "资料没有给出数字，只说锁页更快",
    "training-step time fp32 / AMP (speed-up)": "一个训练步的时间 fp32 / AMP（加速比）",
    ("torch.utils.benchmark.Timer, {rounds} interleaved rounds of synchronised steps; medians fp32 {fp32} ms, "
     "autocast(float16)+GradScaler {amp} ms, NVIDIA H200"):
        ("torch.utils.benchmark.Timer，交错 {rounds} 轮同步的训练步；中位数：fp32 {fp32} ms，"
         "autocast(float16)+GradScaler {amp} ms，NVIDIA H200"),
    "the material's: SimpleCNN, batch 256, Adam (on an RTX 3090)": "按资料：SimpleCNN，批大小 256，Adam（在 RTX 3090 上）",
    "the material's 37% faster, as a ratio 1.37": "资料说快 37%，换成比值是 1.37",
    "peak memory saved by AMP in one training step": "AMP 在一个训练步中节省的峰值显存",
    ("torch.cuda.max_memory_allocated over one step after a warm-up step (deterministic): fp32 {fp32} MiB vs "
     "AMP {amp} MiB, NVIDIA H200"):
        "一个预热步之后，一个训练步期间的 torch.cuda.max_memory_allocated（确定性的）：fp32 {fp32} MiB 对 AMP {amp} MiB，NVIDIA H200",

    # bench_modules.py
    "activation memory saved by checkpointing the feature extractor": "对特征提取部分做 checkpoint 节省的激活内存",
    "saved_tensors_hooks byte count, {plain} -> {checkpointed} bytes": "saved_tensors_hooks 统计的字节数，{plain} -> {checkpointed} 字节",
    ("the material names no model; the SmallCNN of 002 §4.3, feature extractor checkpointed, "
     "batch 32 of 3x32x32"):
        "资料没指明模型；用 002 §4.3 的 SmallCNN，对特征提取部分做 checkpoint，批大小 32，输入 3x32x32",
    "extra forward+backward time with the checkpoint": "做了 checkpoint 后前向+反向多花的时间",
    "whole-module file / state_dict file size": "整个模块的文件大小 / state_dict 的文件大小",
    "torch.save to BytesIO: {whole} B whole module, {state_dict} B state_dict":
        "torch.save 到 BytesIO：整个模块 {whole} B，state_dict {state_dict} B",
    "the material's SmallCNN; the whole module carries a 1e6-int list attribute (a cached dataset)":
        "资料的 SmallCNN；整个模块带着一个含 1e6 个整数的列表属性（缓存的数据集）",
    "SmallCNN state_dict file size": "SmallCNN 的 state_dict 文件大小",
    "torch.save(model.state_dict()) to BytesIO: {state_dict} B": "torch.save(model.state_dict()) 到 BytesIO：{state_dict} B",

    # bench_tensors.py
    "large tensor: time of zeros+fill / empty+fill": "大张量：zeros+fill / empty+fill 的时间",
    "small tensor: time of zeros+fill / empty+fill": "小张量：zeros+fill / empty+fill 的时间",
    ("torch.utils.benchmark.Timer, 1 thread, {size} float32, {rounds} interleaved rounds; zeros+fill {zeros} ms, "
     "empty+fill {empty} ms (medians)"):
        "torch.utils.benchmark.Timer，1 个线程，{size} 个 float32，交错 {rounds} 轮；zeros+fill {zeros} ms，empty+fill {empty} ms（中位数）",
    "the material gives no size; 1e7 float32 (40 MB, fresh pages from the OS each call) and 1000 float32":
        "资料没给规模；1e7 个 float32（40 MB，每次调用都向操作系统要新的页）和 1000 个 float32",
    ("untouched_ratio_zeros_over_empty is zeros/empty of the large tensor without writing it: empty returns pages "
     "never faulted in, so that ratio times an allocation, not a use"):
        ("untouched_ratio_zeros_over_empty 是不写入大张量时 zeros/empty 的时间比：empty 返回的页从未被真正调入，"
         "所以这个比值计的是一次分配，而不是一次使用"),
    "linspace/arange result bytes": "linspace/arange 结果的字节数",
    "untyped_storage().nbytes(): linspace {linspace} B, arange {arange} B ({elements} elements)":
        "untyped_storage().nbytes()：linspace {linspace} B，arange {arange} B（{elements} 个元素）",
    "the material's: 100000 elements": "按资料：100000 个元素",
}
