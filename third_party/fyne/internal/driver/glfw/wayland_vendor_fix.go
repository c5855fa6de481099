//go:build required

package glfw

import _ "github.com/go-gl/glfw/v3.4/glfw/glfw/include"
