//go:build go1.27

package playground

const encodedRect = "iVBORw0KGgoAAAANSUhEUgAAAAoAAAAKCAIAAAACUFjqAAAAEUlEQVR4nGJiwAtGpbFKAwYADogAFRbNyHoAAAAASUVORK5CYII="
