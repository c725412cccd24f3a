package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * Main returns from main instead of calling System.exit after a successful command only when no
 * other non-daemon thread is alive (else the JVM would wait for it). These tests pin that check:
 * a running non-daemon thread, in any thread group, keeps it false; a daemon one does not.
 */
class MainExitTest {

  private static boolean whileRunning(Thread t, CountDownLatch started, CountDownLatch release) throws InterruptedException {
    t.start();
    started.await();
    try {
      return Main.othersAreDaemons();
    } finally {
      release.countDown();
      t.join();
    }
  }

  private static Thread parked(ThreadGroup group, boolean daemon, CountDownLatch started, CountDownLatch release) {
    Thread t = new Thread(group, () -> {
      started.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "parked");
    t.setDaemon(daemon);
    return t;
  }

  @Test
  void aNonDaemonThread_inAnotherGroup_keepsSystemExit() throws InterruptedException {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ThreadGroup other = new ThreadGroup(Thread.currentThread().getThreadGroup().getParent(), "other");
    assertFalse(whileRunning(parked(other, false, started, release), started, release));
  }

  @Test
  void aNonDaemonThread_inThisGroup_keepsSystemExit() throws InterruptedException {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    assertFalse(whileRunning(parked(Thread.currentThread().getThreadGroup(), false, started, release), started, release));
  }

  @Test
  void aDaemonThread_doesNotCount() throws InterruptedException {
    boolean before = Main.othersAreDaemons(); // the test runner's own threads decide the baseline
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    boolean during = whileRunning(parked(Thread.currentThread().getThreadGroup(), true, started, release), started, release);
    assertTrue(before == during, "a daemon thread changed the answer from " + before + " to " + during);
  }
}
