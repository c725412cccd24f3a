package dev.idem.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;

/** The results of one JMH run, looked up by method name and parameters. */
final class JmhResults {
  private final Collection<RunResult> all;

  JmhResults(Collection<RunResult> all) {
    this.all = all;
  }

  JmhResults and(JmhResults more) {
    List<RunResult> both = new ArrayList<>(all);
    both.addAll(more.all);
    return new JmhResults(both);
  }

  RunResult findRun(String method, String... params) {
    for (RunResult r : all) {
      String name = r.getParams().getBenchmark();
      if (!name.substring(name.lastIndexOf('.') + 1).equals(method)) {
        continue;
      }
      boolean match = true;
      for (int i = 0; i < params.length; i += 2) {
        match &= params[i + 1].equals(r.getParams().getParam(params[i]));
      }
      if (match) {
        return r;
      }
    }
    return null;
  }

  Result<?> find(String method, String... params) {
    RunResult r = findRun(method, params);
    return r == null ? null : r.getPrimaryResult();
  }

  Result<?> get(String method, String... params) {
    Result<?> r = find(method, params);
    if (r == null) {
      throw new IllegalStateException("no result for " + method + " " + String.join(",", params));
    }
    return r;
  }

  /** A secondary result's score, e.g. an {@code @AuxCounters} field (mean of its per-iteration sums). */
  double secondary(String method, String label, String... params) {
    RunResult r = findRun(method, params);
    if (r == null) {
      throw new IllegalStateException("no result for " + method + " " + String.join(",", params));
    }
    Result<?> v = r.getSecondaryResults().get(label);
    if (v == null) {
      throw new IllegalStateException("no " + label + " in " + method + ": " + r.getSecondaryResults().keySet());
    }
    return v.getScore();
  }

  /** {@code gc.alloc.rate.norm} in bytes per operation. */
  double alloc(String method, String... params) {
    RunResult r = findRun(method, params);
    if (r == null) {
      return Double.NaN;
    }
    for (String label : r.getSecondaryResults().keySet()) {
      if (label.endsWith("gc.alloc.rate.norm")) {
        Result<?> norm = r.getSecondaryResults().get(label);
        return norm.getScore();
      }
    }
    return Double.NaN;
  }
}
