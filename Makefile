# Build targets for `sam build` (functions declare `Metadata: BuildMethod: makefile` with
# `ContextPath: .`, so SAM runs `make --makefile <this file> build-<LogicalId>` with ARTIFACTS_DIR
# set to the function's output folder).
#
# SAM first copies the function's CodeUri to a scratch folder and runs make there, unless
# --build-in-source is given. The function modules need their siblings (fleet-core) and the
# parent pom, which are outside CodeUri, so every target builds the Maven reactor at the folder
# of this Makefile, wherever make is started from. Maven's own target/ folders are git-ignored.
#
# Lambda's Java runtime puts every jar under lib/ of the deployment package on the class path.
# The shaded jar goes there unchanged, so its manifest (Multi-Release) stays in effect; unzipping
# it into the package root would silently drop the META-INF/versions classes.

ROOT := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))

# The parent pom compiles with --release 21, which needs JDK 21 or newer; use the JDK this
# project's machines carry when it is there, else keep the caller's JAVA_HOME.
PREFERRED_JDK := /usr/lib/jvm/temurin-25-jdk-amd64
ifneq ($(wildcard $(PREFERRED_JDK)/bin/javac),)
export JAVA_HOME := $(PREFERRED_JDK)
export PATH := $(JAVA_HOME)/bin:$(PATH)
endif

MVN ?= mvn
# Add -o to build from the local repository only.
MVN_FLAGS ?= -B -q
VERSION := 0.1.0-SNAPSHOT

# $(call lambda-jar,MODULE): package MODULE (and what it depends on) and put its shaded jar
# into $(ARTIFACTS_DIR)/lib.
define lambda-jar
	@test -n "$(ARTIFACTS_DIR)" || { echo "ARTIFACTS_DIR is not set; run this target through sam build" >&2; exit 2; }
	cd "$(ROOT)" && $(MVN) $(MVN_FLAGS) -pl functions/$(1) -am package -DskipTests -Dspotless.skip=true
	rm -rf "$(ARTIFACTS_DIR)/lib"
	mkdir -p "$(ARTIFACTS_DIR)/lib"
	cp "$(ROOT)/functions/$(1)/target/$(1)-$(VERSION)-lambda.jar" "$(ARTIFACTS_DIR)/lib/"
endef

.PHONY: build-InterruptionDrainFunction
build-InterruptionDrainFunction:
	$(call lambda-jar,interruption-drain)

.PHONY: build-CostReportFunction
build-CostReportFunction:
	$(call lambda-jar,cost-report)
.PHONY: build-DisruptionScheduleFunction
build-DisruptionScheduleFunction:
	$(call lambda-jar,disruption-schedule)
.PHONY: build-CapacityPreflightFunction
build-CapacityPreflightFunction:
	$(call lambda-jar,capacity-preflight)
