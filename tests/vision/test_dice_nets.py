"""The classifier's and the d8 reader's layers export to one ONNX file that onnxruntime and OpenCV's DNN run alike.

Needs the ``train`` extra (torch): skipped where it is not installed (CI never trains).
"""

import cv2
import numpy as np
import pytest

torch = pytest.importorskip("torch")
ort = pytest.importorskip("onnxruntime")

from companion.workshop.dice.nets import CLASSIFIER_ARCHS, ClassifierExport, D8Reader, DiceClassifier, export_onnx  # noqa: E402


def _with_random_statistics(net):
    # fresh BatchNorm layers are the identity; random statistics make a wrong export visible
    gen = torch.Generator().manual_seed(0)
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.copy_(torch.rand(m.num_features, generator=gen) * 2 - 1)
            m.running_var.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
    return net.eval()


@pytest.mark.parametrize("arch,grid,size", [("conv", 0, 48), ("conv", 3, 48), ("conv", 3, 40),
                                            *[(a, 3, 48) for a in CLASSIFIER_ARCHS if a != "conv"]])
def test_classifier_export_runs_alike_in_torch_onnxruntime_and_opencv(tmp_path, arch, grid, size):
    torch.manual_seed(0)
    net = _with_random_statistics(DiceClassifier(20, grid=grid, **CLASSIFIER_ARCHS[arch]))
    path = tmp_path / "c.onnx"
    export_onnx(ClassifierExport(net, 0.8), torch.zeros(2, 3, size, size), path, ["crops"], ["logits"],
                {"crops": {0: "n"}, "logits": {0: "n"}})
    x = np.random.default_rng(1).standard_normal((5, 3, size, size)).astype(np.float32)
    with torch.no_grad():
        want = net(torch.from_numpy(x)).numpy() / 0.8
    got_ort = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"crops": x})[0]
    cv_net = cv2.dnn.readNetFromONNX(str(path))
    cv_net.setInput(x)
    got_cv = cv_net.forward()
    np.testing.assert_allclose(got_ort, want, atol=1e-4)
    np.testing.assert_allclose(got_cv, want, atol=1e-4)  # OpenCV ignores count_include_pad=0: it must not be used


def test_d8_reader_export_runs_alike_in_torch_onnxruntime_and_opencv(tmp_path):
    torch.manual_seed(0)
    net = _with_random_statistics(D8Reader(9, size=64))
    path = tmp_path / "d8.onnx"
    export_onnx(ClassifierExport(net, 1.3), torch.zeros(2, 3, 64, 64), path, ["crops"], ["logits"],
                {"crops": {0: "n"}, "logits": {0: "n"}})
    x = np.random.default_rng(2).standard_normal((3, 3, 64, 64)).astype(np.float32)
    with torch.no_grad():
        want = net(torch.from_numpy(x)).numpy() / 1.3
    got_ort = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"crops": x})[0]
    cv_net = cv2.dnn.readNetFromONNX(str(path))
    cv_net.setInput(x)
    np.testing.assert_allclose(got_ort, want, atol=1e-4)
    np.testing.assert_allclose(cv_net.forward(), want, atol=1e-4)


def test_train_d8_quick_run_adds_its_entry_and_keeps_the_others(tmp_path, monkeypatch):
    """A smoke run of ``python -m companion.workshop.dice.train_d8 --quick`` into a copy of the models folder."""
    import json
    import shutil

    from companion.vision.models import model_entry, models_dir
    from companion.workshop.dice import train_d8

    for name in ("manifest.json", "dice_detector.onnx", "dice_classifier.onnx"):
        shutil.copy(models_dir() / name, tmp_path)
    before = json.loads((tmp_path / "manifest.json").read_text())
    before.pop("dice_d8_reader", None)
    (tmp_path / "manifest.json").write_text(json.dumps(before))
    monkeypatch.setenv("COMPANION_SKIP_CARDS", "1")
    assert train_d8.main(["--quick", "--out", str(tmp_path)]) == 0
    after = json.loads((tmp_path / "manifest.json").read_text())
    assert {k: after[k] for k in before} == before  # the detector's and classifier's entries kept
    path, entry = model_entry("dice_d8_reader", tmp_path)  # its hash checks
    assert entry["config"]["size"] == 64 and len(entry["classes"]) == 9
    assert "| all readable dice |" in (tmp_path / "dice_d8_reader.md").read_text()
    assert (tmp_path / "dice_d8_reader_confusion.png").is_file()


def test_grid_head_keeps_where_a_feature_is():
    # the same input moved from the centre cell to a corner cell: the global pool cannot tell them apart
    # well, the 3x3 grid must (a pip in the centre tells a 5 from a 4)
    torch.manual_seed(0)
    x = torch.zeros(2, 3, 48, 48)
    x[0, :, 20:28, 20:28] = 1.0
    x[1, :, 4:12, 4:12] = 1.0
    outs = {}
    for grid in (0, 3):
        net = _with_random_statistics(DiceClassifier(20, grid=grid))
        with torch.no_grad():
            pooled = net.pooled(x)
        outs[grid] = (pooled[0] - pooled[1]).abs().max().item() / pooled.abs().max().item()
    assert outs[3] > 3 * outs[0]


def test_grid_must_be_0_or_3():
    with pytest.raises(ValueError):
        DiceClassifier(20, grid=2)


def test_classifier_with_an_embedding_head_exports_both_outputs_alike(tmp_path):
    torch.manual_seed(0)
    net = _with_random_statistics(DiceClassifier(20, grid=3, embed_dim=32))
    path = tmp_path / "ce.onnx"
    export_onnx(ClassifierExport(net, 0.8), torch.zeros(2, 3, 48, 48), path, ["crops"], ["logits", "embedding"],
                {"crops": {0: "n"}, "logits": {0: "n"}, "embedding": {0: "n"}})
    x = np.random.default_rng(3).standard_normal((4, 3, 48, 48)).astype(np.float32)
    with torch.no_grad():
        want_logits = net(torch.from_numpy(x)).numpy() / 0.8
        want_emb = net.embedding(net.pooled(torch.from_numpy(x))).numpy()
    got_logits, got_emb = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
        ["logits", "embedding"], {"crops": x})
    np.testing.assert_allclose(got_logits, want_logits, atol=1e-4)
    np.testing.assert_allclose(got_emb, want_emb, atol=1e-4)
    np.testing.assert_allclose(np.linalg.norm(got_emb, axis=1), 1.0, atol=1e-5)
    cv_net = cv2.dnn.readNetFromONNX(str(path))
    cv_net.setInput(x)
    cv_logits, cv_emb = cv_net.forward(["logits", "embedding"])  # by name: OpenCV lists outputs in its own order
    np.testing.assert_allclose(cv_logits, want_logits, atol=1e-4)
    np.testing.assert_allclose(cv_emb, want_emb, atol=1e-4)
