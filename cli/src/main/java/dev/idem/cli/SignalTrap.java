package dev.idem.cli;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * Handles one signal in place of the JVM's own handler, until {@link #restore()}. It exists for {@code
 * idem run --on-term finish}: a shutdown hook runs only once the JVM has begun to exit, which can then
 * neither be called off (to let CMD finish and publish) nor tell a second signal from the first; a
 * handler can do both.
 *
 * <p>The JDK's only public way to handle a signal is {@code sun.misc.Signal} (module {@code
 * jdk.unsupported}, in every JDK and in idem's runtime). It is reached by reflection, so that the
 * build stays free of internal-API warnings and a runtime without it (a JVM started with {@code -Xrs},
 * a trimmed image) is told apart: {@link #install} then says why, and the caller keeps the JVM's
 * handler, which exits through the shutdown hooks as before.
 */
final class SignalTrap {
  private final Method handle;
  private final Object signal;
  private final Object previous;

  private SignalTrap(Method handle, Object signal, Object previous) {
    this.handle = handle;
    this.signal = signal;
    this.previous = previous;
  }

  /** Why a signal cannot be handled here; its message is one line. */
  static final class Unavailable extends Exception {
    private static final long serialVersionUID = 1L;

    Unavailable(String message) {
      super(message);
    }
  }

  /**
   * Runs {@code onSignal} on the JVM's signal thread for every {@code name} signal ({@code "TERM"}),
   * instead of the JVM's handler.
   *
   * @throws Unavailable when this runtime cannot handle the signal; nothing was changed
   */
  static SignalTrap install(String name, Runnable onSignal) throws Unavailable {
    try {
      Class<?> signalClass = Class.forName("sun.misc.Signal");
      Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
      Object signal = signalClass.getConstructor(String.class).newInstance(name);
      Method handle = signalClass.getMethod("handle", signalClass, handlerClass);
      Object handler = Proxy.newProxyInstance(SignalTrap.class.getClassLoader(), new Class<?>[] {handlerClass},
          (proxy, method, args) -> switch (method.getName()) {
            case "handle" -> {
              onSignal.run();
              yield null;
            }
            case "equals" -> proxy == args[0];
            case "hashCode" -> System.identityHashCode(proxy);
            default -> "idem SIG" + name + " handler";
          });
      return new SignalTrap(handle, signal, handle.invoke(null, signal, handler));
    } catch (InvocationTargetException e) {
      // -Xrs, or a signal the JVM reserves: the cause says which.
      throw new Unavailable("SIG" + name + " cannot be handled: " + ExitCodes.oneLine(e.getCause()));
    } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
      throw new Unavailable("SIG" + name + " cannot be handled on this runtime (no sun.misc.Signal: "
          + ExitCodes.oneLine(e) + ")");
    }
  }

  /** Gives the signal back to the handler it had before {@link #install}. */
  void restore() {
    try {
      handle.invoke(null, signal, previous);
    } catch (ReflectiveOperationException | RuntimeException e) {
      // The JVM is exiting, or the handler was replaced again: ours only ever ends the run, as the JVM's would.
    }
  }
}
