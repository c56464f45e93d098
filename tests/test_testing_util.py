"""The rest of tf.test (Benchmark, benchmark_config, assert_equal_graph_def,
the decorators, is_cpu_target_available, create_local_cluster,
tf.test.experimental.sync_devices) against TensorFlow 2.21: the cases of
tools/tf_infra_fixtures.py, and the decorators run in unittest."""
import os
import sys
import unittest

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_infra_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_infra.npz"))
_NAMES = ["assert_equal_graph_def_messages", "assert_equal_graph_def_value_summaries",
          "assert_equal_graph_def_not_a_graph_def",
          "benchmark_config_proto", "cpu_targets", "cpu_target_unknown",
          "sync_devices_eager_and_traced", "benchmark_report_file", "benchmark_bad_extras"]


@pytest.mark.parametrize("name", _NAMES)
def test_equals_tensorflow(name):
    fixtures.CASES.check(name, tf, _DATA)


def test_disable_with_predicate_skips_at_run_time():
    ran = []
    flag = [True]

    class T(tf.test.TestCase):
        @tf.test.disable_with_predicate(lambda: flag[0], "skipped here")
        def test_a(self):
            ran.append("a")

    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(T).run(result)
    assert [m for _, m in result.skipped if m == "skipped here"] and not ran
    flag[0] = False
    unittest.defaultTestLoader.loadTestsFromTestCase(T).run(unittest.TestResult())
    assert ran == ["a"]


def test_with_eager_op_as_function_returns_the_class():
    class T(tf.test.TestCase):
        def test_x(self):
            pass
    assert tf.test.with_eager_op_as_function(T) is T
    assert tf.test.with_eager_op_as_function(only_as_function=True)(T) is T


def test_create_local_cluster_says_why_it_cannot():
    with pytest.raises(tf.errors.UnimplementedError, match="distributed runtime"):
        tf.test.create_local_cluster(2, 1)


def test_run_op_benchmark_times_a_session(capsys):
    class Sess:
        calls = 0

        def run(self, fetches, feed_dict=None):
            Sess.calls += 1
            return fetches

    class B(tf.test.Benchmark):
        def benchmark_op(self):
            return self.run_op_benchmark(Sess(), tf.constant(1.0), burn_iters=1, min_iters=3)

    values = B().benchmark_op()
    assert Sess.calls == 4 and values["iters"] == 3 and values["name"] is None
    assert {"wall_time_mean", "wall_time_stdev"} <= set(values["extras"])
    assert 'name: "B.benchmark_op"' in capsys.readouterr().out
    np.testing.assert_array_equal(B().evaluate([tf.constant([1, 2])])[0], [1, 2])
