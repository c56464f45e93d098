"""`rillflow saved-model show DIR`: a SavedModel's signatures, functions
and variables, as `saved_model_cli show --all` prints them (read from the
file only; nothing is imported or run)."""
import os

from rillflow.cli import main

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_saved_models")


def test_show_describes_signatures_functions_and_variables(capsys):
    assert main(["saved-model", "show", os.path.join(DATA, "module")]) == 0
    out = capsys.readouterr().out
    assert "MetaGraphDef with tag-set: 'serve' contains the following SignatureDefs:" in out
    assert ("signature_def['serving_default']:\n"
            "  The given SavedModel SignatureDef contains the following input(s):\n"
            "    inputs['x'] tensor_info:\n"
            "        dtype: DT_FLOAT\n"
            "        shape: (-1, 3)\n"
            "        name: serving_default_x:0\n") in out
    assert "    outputs['total'] tensor_info:" in out
    assert "  Method name is: tensorflow/serving/predict" in out
    assert "  Function Name: 'inner.project'" in out
    assert "TensorSpec(shape=(2, 1), dtype=tf.float32, name='x')" in out
    assert "  inner.w: DT_FLOAT (3, 2) (name: w, trainable)" in out
    assert "  count: DT_INT64 () (name: count, trainable)" in out


def test_show_one_signature_and_errors(capsys):
    path = os.path.join(DATA, "module")
    assert main(["saved-model", "show", "--dir", path, "--tag_set", "serve",
                 "--signature_def", "scaled"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("signature_def['scaled']:") and "serving_default" not in out
    assert main(["saved-model", "show", path, "--tag_set", "train"]) == 1
    assert "could not be found" in capsys.readouterr().err
    assert main(["saved-model", "show", os.path.join(DATA, "nope")]) == 1
    assert "SavedModel file does not exist" in capsys.readouterr().err
    assert main(["saved-model", "show"]) == 1
