package dev.idem.core.scan;

import java.util.List;
import java.util.Objects;

/**
 * One window of a pipeline that holds more than one key: the signature of keying drift, two builds that
 * declared different inputs for one window without bumping the schema, so each published its own key and
 * readers get whichever advanced the pointer first.
 *
 * <p>The stores do not record a key's schema version, so a window where an old and a new build
 * overlapped across a {@code --schema} bump holds two keys too and is listed as well; the publisher's
 * {@link dev.idem.core.publish.AdvanceStatus#SAME_POSITION_OTHER_KEY} is the report that knows the schema.
 *
 * @param pipeline the pipeline
 * @param windowStart the window start, epoch seconds
 * @param keys the window's keys in store order, at least two
 */
public record WindowDrift(String pipeline, long windowStart, List<String> keys) {
  public WindowDrift {
    Objects.requireNonNull(pipeline, "pipeline");
    keys = List.copyOf(keys);
    if (keys.size() < 2) {
      throw new IllegalArgumentException("a window drifts only with two or more keys, had " + keys);
    }
  }
}
