package dev.idem.core.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;

/**
 * The pointer as a state machine (G2, G3), checked by jqwik's {@code ActionChain} against the
 * simplest model: the maximum position advanced to so far. Actions: advance to a generated position
 * through {@link PointerAdvancer}; and a stale writer's raw compare-and-swap with a token it read
 * earlier, which must fail whenever the pointer moved since.
 */
class PointerAdvancerProperties {

  static final class Machine {
    final InMemoryObjectStore store = new InMemoryObjectStore();
    final PointerAdvancer advancer = new PointerAdvancer(store, 3, 0);
    Optional<Pointer.Position> model = Optional.empty();
    final List<String> tokensSeen = new ArrayList<>();

    Pointer pointer(long windowIndex, int schema) {
      try {
        String key = RunSpec.of("p", new Window(60 * windowIndex, 60), schema).outputKey().toString();
        if (!store.exists(key)) {
          store.putIfAbsent(key, Payload.ofBytes(("g" + windowIndex + "/" + schema).getBytes()), "w");
        }
        return Pointer.to(store.stat(key).orElseThrow(), 60, schema, "w", Instant.EPOCH);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    Optional<PointerState> read() {
      return store.readPointer("p");
    }

    @Override
    public String toString() {
      return "model=" + model;
    }
  }

  record Target(long window, int schema) {}

  static Action.Independent<Machine> advance() {
    Arbitrary<Target> targets = Combinators.combine(Arbitraries.longs().between(1, 6), Arbitraries.integers().between(0, 2))
        .as(Target::new);
    return () -> targets.map(t -> Transformer.mutate("advance to " + t, (Machine m) -> {
      read(m).ifPresent(s -> m.tokensSeen.add(s.token()));
      Pointer next = m.pointer(t.window(), t.schema());
      AdvanceStatus expected = m.model.isEmpty() || m.model.get().compareTo(next.position()) < 0
          ? AdvanceStatus.ADVANCED
          : m.model.get().compareTo(next.position()) == 0 ? AdvanceStatus.ALREADY_CURRENT : AdvanceStatus.NEWER_PRESENT;
      try {
        assertEquals(expected, m.advancer.advance(next).status(), "advance " + t + " from " + m.model);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      if (expected == AdvanceStatus.ADVANCED) {
        m.model = Optional.of(next.position());
      }
    }));
  }

  static Action.Dependent<Machine> staleCas() {
    return new Action.Dependent<>() {
      @Override
      public boolean precondition(Machine m) {
        return !m.tokensSeen.isEmpty();
      }

      @Override
      public Arbitrary<Transformer<Machine>> transformer(Machine state) {
        return Arbitraries.of(state.tokensSeen).map(token -> Transformer.mutate("stale CAS with " + token, (Machine m) -> {
          String current = read(m).map(PointerState::token).orElse(null);
          Pointer older = m.pointer(0, 0);
          CasResult r = m.store.compareAndSetPointer("p", token, older);
          if (token.equals(current)) {
            // Unchanged since it was read: a raw CAS swaps even to an older position. That is why
            // ordering lives in PointerAdvancer, which never offers an older one.
            assertEquals(CasResult.SWAPPED, r);
            m.model = Optional.of(older.position());
          } else {
            assertEquals(CasResult.CONFLICT, r, "a stale token must never win");
          }
        }));
      }
    };
  }

  private static Optional<PointerState> read(Machine m) {
    return m.read();
  }

  @Provide
  Arbitrary<ActionChain<Machine>> chains() {
    return ActionChain.startWith(Machine::new)
        .withAction(5, advance())
        .withAction(1, staleCas())
        .withMaxTransformations(40);
  }

  @Property(tries = 300, seed = "20261202")
  void pointer_followsModel(@ForAll("chains") ActionChain<Machine> chain) {
    chain.withInvariant("pointer equals model", m ->
            assertEquals(m.model, m.read().map(s -> s.pointer().position())))
        .run();
  }
}
