package io.gpufleet.core.lambda;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * A Lambda {@link Context} for running a handler outside Lambda (CLI, simulate, local invoke), with
 * a fixed time budget.
 */
public final class LocalContext implements Context {
  private final String functionName;
  private final int remainingMillis;
  private final String requestId = UUID.randomUUID().toString();

  public LocalContext(String functionName, int remainingMillis) {
    this.functionName = functionName;
    this.remainingMillis = remainingMillis;
  }

  @Override
  public String getAwsRequestId() {
    return requestId;
  }

  @Override
  public String getLogGroupName() {
    return "/local/" + functionName;
  }

  @Override
  public String getLogStreamName() {
    return "local";
  }

  @Override
  public String getFunctionName() {
    return functionName;
  }

  @Override
  public String getFunctionVersion() {
    return "$LATEST";
  }

  @Override
  public String getInvokedFunctionArn() {
    return "arn:aws:lambda:local:000000000000:function:" + functionName;
  }

  @Override
  public CognitoIdentity getIdentity() {
    return null;
  }

  @Override
  public ClientContext getClientContext() {
    return null;
  }

  @Override
  public int getRemainingTimeInMillis() {
    return remainingMillis;
  }

  @Override
  public int getMemoryLimitInMB() {
    return 1024;
  }

  @Override
  public LambdaLogger getLogger() {
    return new LambdaLogger() {
      @Override
      public void log(String message) {
        System.err.println(message);
      }

      @Override
      public void log(byte[] message) {
        System.err.println(new String(message, StandardCharsets.UTF_8));
      }
    };
  }
}
