//go:build tools

package main

import (
	_ "github.com/gen2brain/malgo"
	_ "github.com/ebitengine/oto/v3"
	_ "github.com/zalando/go-keyring"
	_ "gopkg.in/hraban/opus.v2"
	_ "github.com/at-wat/ebml-go"
	_ "github.com/hajimehoshi/go-mp3"
	_ "modernc.org/sqlite"
	_ "go.uber.org/goleak"
	_ "github.com/google/go-cmp/cmp"
	_ "golang.org/x/term"
	_ "github.com/spf13/cobra"
)
