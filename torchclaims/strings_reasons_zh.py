"""The specs' own version reasons (``needs_torch``/``measurable_on``/``require_*``: what a release
lacks), in Chinese, keyed by the English the reports record. ``strings.translate`` puts one in a
Chinese skip note; tests/test_chinese.py fails on a reason of the committed reports missing here."""

REASONS = {
    "1.13's weights-only unpickler refuses Python floats such as an optimizer's lr (2.0 accepts them)":
        "1.13 的 weights-only 反序列化器拒收 Python 浮点数（例如优化器的 lr），2.0 起接受",
    "CPU autocast to float16 (pytorch#112484) appeared in 2.2; before, only bfloat16 (CUDA autocast has float16)":
        "CPU 上 autocast 到 float16（pytorch#112484）从 2.2 起才有；此前只支持 bfloat16（CUDA 的 autocast 一直有 float16）",
    "CPU float16 softmax, log_softmax and exp kernels appeared in 2.2 (the CUDA ones exist on every release)":
        "CPU 上 float16 的 softmax、log_softmax 与 exp 内核从 2.2 起才有（CUDA 内核各版本都有）",
    "before 2.0 torch.cat accepts cpu + meta tensors unchecked, so meta cannot stand in for a second device":
        "2.0 之前 torch.cat 不检查就接受 cpu 与 meta 张量混用，因此 meta 无法充当第二个设备",
    "before 2.2 CPU autocast raises for a dtype other than bfloat16 (pytorch#112484 widened it and made the rest a warning)":
        "2.2 之前 CPU autocast 遇到 bfloat16 以外的 dtype 会报错（pytorch#112484 放宽了范围，其余改为警告）",
    "checkpoint() warns about an implicit use_reentrant from 2.1 on":
        "从 2.1 起 checkpoint() 会对未显式给出的 use_reentrant 发出警告",
    "the CPU float16 softmax kernel (pytorch#103315) appeared in 2.2 (the CUDA one exists before)":
        "CPU 上 float16 的 softmax 内核（pytorch#103315）从 2.2 起才有（CUDA 内核更早就有）",
    "the CPU bfloat16 prod kernel appeared in 2.0 (1.13 has none)":
        "CPU 上 bfloat16 的 prod 内核从 2.0 起才有（1.13 没有）",
    "squeeze with a tuple of dims appeared in 2.0":
        "squeeze 接受多个维度组成的元组从 2.0 起才有",
    "the old per-device autocast names warn as deprecated from 2.4 on":
        "从 2.4 起旧的按设备划分的 autocast 名称会发出弃用警告",
    "the DataLoader warns that no accelerator is found from 2.7 on (2.6.0 has no such warning)":
        "从 2.7 起 DataLoader 会警告找不到加速器（2.6.0 没有这个警告）",
    "the DataLoader's no-accelerator warning came with torch.accelerator in 2.6":
        "DataLoader 关于没有加速器的警告随 2.6 的 torch.accelerator 一起出现",
    "the None default, resolved to 2 only with workers, came in 2.0 (1.13: plain 2)":
        "默认值 None（只在有工作进程时解析为 2）从 2.0 起才有（1.13 直接是 2）",
    "the reference loader uses weights_only=True: 1.13's weights-only unpickler refuses Python floats such as an optimizer's lr (2.0 accepts them)":
        "参考实现的加载函数使用 weights_only=True：1.13 的 weights-only 反序列化器拒收 Python 浮点数（例如优化器的 lr），2.0 起接受",
    "torch.amp.GradScaler, the device-generic replacement, appeared in 2.3":
        "与设备无关的替代品 torch.amp.GradScaler 从 2.3 起才有",
    "torch.amp.GradScaler, usable on the CPU, appeared in 2.3":
        "可在 CPU 上使用的 torch.amp.GradScaler 从 2.3 起才有",
    "torch.autograd.graph.Node, the base class of graph nodes, appeared in 2.0":
        "计算图节点的基类 torch.autograd.graph.Node 从 2.0 起才有",
    "torch.compile appeared in 2.0":
        "torch.compile 从 2.0 起才有",
    "torch.compile exists on 2.0 but refuses Python 3.11; it runs there from 2.1":
        "torch.compile 在 2.0 上存在，但拒绝在 Python 3.11 上运行；从 2.1 起才能在这里运行",
    "torch.cuda.amp.GradScaler exists, but disables itself without CUDA; torch.amp.GradScaler, usable on the CPU, appeared in 2.3":
        "torch.cuda.amp.GradScaler 存在，但没有 CUDA 时会自行停用；可在 CPU 上使用的 torch.amp.GradScaler 从 2.3 起才有",
    "transforms.v2.ToImage and ToDtype(scale=True) appeared in torchvision 0.16, which needs torch 2.1":
        "transforms.v2.ToImage 与 ToDtype(scale=True) 从 torchvision 0.16 起才有，而它需要 torch 2.1",
    "up to 2.1 the error is a RuntimeError (measured on 2.1.2); 2.2 raises ValueError (distributed_c10d.py of the 2.2.2 wheel)":
        "到 2.1 为止这个错误是 RuntimeError（在 2.1.2 上测得）；2.2 抛出 ValueError（见 2.2.2 wheel 中的 distributed_c10d.py）",
}
