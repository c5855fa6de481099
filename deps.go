//go:build tools

package main

import (
	_ "github.com/at-wat/ebml-go"
	_ "github.com/ebitengine/oto/v3"
	_ "github.com/gen2brain/malgo"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/hajimehoshi/go-mp3"
	_ "github.com/spf13/cobra"
	_ "github.com/zalando/go-keyring"
	_ "go.uber.org/goleak"
	_ "golang.org/x/term"
	_ "gopkg.in/hraban/opus.v2"
	_ "modernc.org/sqlite"
)
