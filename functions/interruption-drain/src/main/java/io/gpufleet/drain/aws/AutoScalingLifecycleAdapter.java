package io.gpufleet.drain.aws;

import io.gpufleet.drain.LifecyclePort;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.autoscaling.AutoScalingClient;
import software.amazon.awssdk.services.autoscaling.model.AutoScalingException;

/**
 * {@link LifecyclePort} over the SDK's Auto Scaling client (query protocol). The token names the
 * action when known, else the instance id; Auto Scaling's {@code ValidationError} means the action
 * is no longer waiting, an access error that this function may not touch the group.
 */
public final class AutoScalingLifecycleAdapter implements LifecyclePort {
  private final AutoScalingClient client;

  public AutoScalingLifecycleAdapter(AutoScalingClient client) {
    this.client = client;
  }

  @Override
  public void heartbeat(Hook hook) throws HookGoneException {
    call(
        () ->
            client.recordLifecycleActionHeartbeat(
                r ->
                    r.autoScalingGroupName(hook.autoScalingGroupName())
                        .lifecycleHookName(hook.hookName())
                        .lifecycleActionToken(hook.token())
                        .instanceId(hook.token() == null ? hook.instanceId() : null)));
  }

  @Override
  public void complete(Hook hook, String result) throws HookGoneException {
    call(
        () ->
            client.completeLifecycleAction(
                r ->
                    r.autoScalingGroupName(hook.autoScalingGroupName())
                        .lifecycleHookName(hook.hookName())
                        .lifecycleActionResult(result)
                        .lifecycleActionToken(hook.token())
                        .instanceId(hook.instanceId())));
  }

  private static void call(Runnable request) throws HookGoneException {
    try {
      request.run();
    } catch (AutoScalingException e) {
      String code = e.awsErrorDetails() == null ? "" : e.awsErrorDetails().errorCode();
      String message =
          e.awsErrorDetails() == null ? e.getMessage() : e.awsErrorDetails().errorMessage();
      if ("ValidationError".equals(code)) {
        throw new HookGoneException(message);
      }
      if (e.statusCode() == 403 || code.startsWith("AccessDenied")) {
        throw new HookDeniedException(code + ": " + message, e);
      }
      throw new HookUnavailableException("Auto Scaling " + code + ": " + message, e);
    } catch (SdkClientException e) {
      throw new HookUnavailableException("Auto Scaling unreachable: " + e.getMessage(), e);
    }
  }
}
