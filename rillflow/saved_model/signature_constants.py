"""The signature constants of `tf.saved_model` (TensorFlow Serving's method
names and input keys of the classify, predict and regress signatures)."""
from ..framework.api_export import export_value

export_value("inputs", "saved_model.CLASSIFY_INPUTS")
export_value("tensorflow/serving/classify", "saved_model.CLASSIFY_METHOD_NAME")
export_value("inputs", "saved_model.PREDICT_INPUTS")
export_value("tensorflow/serving/predict", "saved_model.PREDICT_METHOD_NAME")
export_value("inputs", "saved_model.REGRESS_INPUTS")
export_value("tensorflow/serving/regress", "saved_model.REGRESS_METHOD_NAME")
