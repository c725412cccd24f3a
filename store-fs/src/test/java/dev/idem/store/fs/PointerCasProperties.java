package dev.idem.store.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Sha256;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;

/**
 * The pointer compare-and-swap as a state machine, checked against a model that is just "the current
 * document, or none": any sequence of reads and swaps (with the current token, a stale one, or none)
 * must give exactly the model's answers, and the file must always be the model's document (P1, G3
 * sequentially; races are in {@link FsObjectStoreConcurrencyTest}).
 */
class PointerCasProperties {
  private static final Queue<Path> DIRS = new ConcurrentLinkedQueue<>();

  /** The store under test, the model, and every token handed out so far (the stale ones too). */
  static final class Machine {
    final Path root;
    final FsObjectStore store;
    final List<Pointer> generations = new ArrayList<>();
    final List<String> tokens = new ArrayList<>();
    byte[] model;

    Machine() {
      try {
        root = scratchDirectory();
        DIRS.add(root);
        store = FsObjectStore.open(root);
        for (int w = 1; w <= 4; w++) {
          generations.add(Fixtures.generation(store, "machine", 60L * w, 1));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      tokens.add(null);
    }

    String modelToken() {
      return model == null ? null : Sha256.of(model);
    }

    void fileMatchesModel() {
      Path latest = root.resolve("_idem/pointers/machine/latest");
      try {
        if (model == null) {
          assertFalse(Files.exists(latest));
        } else {
          assertArrayEquals(model, Files.readAllBytes(latest));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public String toString() {
      return "pointer at " + (model == null ? "nothing" : Sha256.of(model).substring(0, 8));
    }
  }

  /**
   * On tmpfs where there is one: this property checks answers against a model, not durability, and
   * fsync there is free, which keeps forty chains of swaps fast.
   */
  static Path scratchDirectory() throws IOException {
    Path shm = Path.of("/dev/shm");
    return Files.isDirectory(shm) && Files.isWritable(shm)
        ? Files.createTempDirectory(shm, "idem-cas") : Files.createTempDirectory("idem-cas");
  }

  private static final class Read extends Action.JustMutate<Machine> {
    @Override
    public void mutate(Machine m) {
      try {
        Optional<PointerState> s = m.store.readPointer("machine");
        assertEquals(m.model == null, s.isEmpty());
        s.ifPresent(state -> {
          assertArrayEquals(m.model, state.pointer().toBytes());
          assertEquals(m.modelToken(), state.token());
          m.tokens.add(state.token());
        });
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public String description() {
      return "read";
    }
  }

  private static final class Swap implements Action.Dependent<Machine> {
    @Override
    public Arbitrary<Transformer<Machine>> transformer(Machine state) {
      Arbitrary<Integer> token = Arbitraries.integers().between(0, state.tokens.size() - 1);
      Arbitrary<Integer> generation = Arbitraries.integers().between(0, state.generations.size() - 1);
      return Combinators.combine(token, generation).as((t, g) -> Transformer.mutate(
          "swap(token#" + t + " -> generation " + g + ")", (Machine m) -> swap(m, m.tokens.get(t), m.generations.get(g))));
    }

    private static void swap(Machine m, String expected, Pointer next) {
      try {
        CasResult r = m.store.compareAndSetPointer("machine", expected, next);
        if (Objects.equals(expected, m.modelToken())) {
          assertEquals(CasResult.SWAPPED, r);
          m.model = next.toBytes();
        } else {
          assertEquals(CasResult.CONFLICT, r);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  @Provide
  Arbitrary<ActionChain<Machine>> chains() {
    return ActionChain.startWith(Machine::new).withAction(new Read()).withAction(2, new Swap()).withMaxTransformations(25);
  }

  @Property(tries = 40, seed = "20240910")
  void compareAndSetPointer_anySequence_answersLikeTheModel(@ForAll("chains") ActionChain<Machine> chain) {
    Machine end = chain.withInvariant("the file is the model's document", Machine::fileMatchesModel).run();
    assertTrue(end.tokens.size() >= 1);
  }

  @AfterContainer
  static void deleteStores() throws IOException {
    for (Path dir; (dir = DIRS.poll()) != null; ) {
      try (Stream<Path> s = Files.walk(dir)) {
        for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }
}
