package teamtest_test

import "github.com/fallacylab/fallacylab/internal/cli/clitest"

// The shared helpers (package clitest) under the names the tests use.
var (
	runCLI       = clitest.Run
	runCLI2      = clitest.RunIn
	guaranteeEnv = clitest.Env
	testServer   = clitest.Server
	promptFile   = clitest.PromptFile
	writeConfig  = clitest.WriteConfig
	scripted     = clitest.Scripted
	echoOrJudge  = clitest.EchoOrJudge
	flipped      = clitest.Flipped
	versionLine  = clitest.VersionLine
	runInStore   = clitest.RunInStore
)

const (
	judgeSystemStart = clitest.JudgeSystemStart
	fourClaims       = clitest.FourClaims
)
