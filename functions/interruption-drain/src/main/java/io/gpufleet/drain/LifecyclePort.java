package io.gpufleet.drain;

/**
 * The EC2 Auto Scaling calls a lifecycle-hook drain makes, and no others. An action is named by its
 * token when the event carried one, else by instance id (the API accepts either).
 */
public interface LifecyclePort {

  /** The action a hook holds an instance for. */
  record Hook(String autoScalingGroupName, String hookName, String token, String instanceId) {}

  /** Restarts the hook's heartbeat timeout. */
  void heartbeat(Hook hook) throws HookGoneException;

  /** Lets the instance go on ({@code CONTINUE}) or abandons the action ({@code ABANDON}). */
  void complete(Hook hook, String result) throws HookGoneException;

  /**
   * The action is no longer waiting (completed by someone else, timed out, or never existed): Auto
   * Scaling's {@code ValidationError} "No active Lifecycle Action found".
   */
  final class HookGoneException extends Exception {
    public HookGoneException(String message) {
      super(message);
    }
  }

  /** This function may not act on that group's hooks (IAM scoped to other groups or tags). */
  final class HookDeniedException extends RuntimeException {
    public HookDeniedException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Auto Scaling could not be reached or was throttled: worth a retry of the whole event. */
  final class HookUnavailableException extends RuntimeException {
    public HookUnavailableException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
